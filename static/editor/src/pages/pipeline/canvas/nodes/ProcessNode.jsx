// The canvas node of process operators.

import { memo } from "react";
import NodeCard, { sameCardProps } from "./NodeCard.jsx";

function ProcessNode(props) {
  return <NodeCard {...props} kind="process" icon="⚙" />;
}

export default memo(ProcessNode, sameCardProps);
