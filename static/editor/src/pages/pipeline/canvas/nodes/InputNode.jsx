// The canvas node of input operators.

import { memo } from "react";
import NodeCard, { sameCardProps } from "./NodeCard.jsx";

function InputNode(props) {
  return <NodeCard {...props} kind="input" icon="⇥" />;
}

export default memo(InputNode, sameCardProps);
