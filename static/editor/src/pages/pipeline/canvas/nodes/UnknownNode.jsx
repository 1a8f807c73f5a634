// The canvas node of an operator the catalog does not know (a plugin that is not installed).

import { memo } from "react";
import NodeCard, { sameCardProps } from "./NodeCard.jsx";

function UnknownNode(props) {
  return <NodeCard {...props} kind="unknown" icon="?" />;
}

export default memo(UnknownNode, sameCardProps);
