// The canvas node of output operators.

import { memo } from "react";
import NodeCard, { sameCardProps } from "./NodeCard.jsx";

function OutputNode(props) {
  return <NodeCard {...props} kind="output" icon="⇲" />;
}

export default memo(OutputNode, sameCardProps);
