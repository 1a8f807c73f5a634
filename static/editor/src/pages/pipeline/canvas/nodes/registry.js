// React Flow's node types, one component per operator kind. Kept at module scope: React Flow
// re-creates every node when this object changes identity. The type names are not the kinds
// themselves because React Flow styles its own built-in "input" and "output" types.

import GroupNode from "./GroupNode.jsx";
import InputNode from "./InputNode.jsx";
import NoteNode from "./NoteNode.jsx";
import OutputNode from "./OutputNode.jsx";
import ProcessNode from "./ProcessNode.jsx";
import UnknownNode from "./UnknownNode.jsx";

export const nodeTypes = {
  inputOperator: InputNode,
  processOperator: ProcessNode,
  outputOperator: OutputNode,
  unknownOperator: UnknownNode,
  // Not operators: the canvas's notes and groups (canvas/useItemNodes.js).
  canvasNote: NoteNode,
  canvasGroup: GroupNode,
};

/** The React Flow node type of an operator kind ("input", "process", "output"). */
export function nodeTypeOf(kind) {
  const type = `${kind}Operator`;
  return type in nodeTypes ? type : "unknownOperator";
}
