// The TypeScript language-service operations the code tools run, one module each.
export { applyChanges, formatFor, PREFERENCES, type FileEdits } from "./ts-edits.js";
export { inspect, type Inspection } from "./ts-inspect.js";
export { moveEdits } from "./ts-move.js";
export { navigate, type CodeLocation, type NavigateOperation } from "./ts-navigate.js";
export { extractEdits, organizeImportsEdits, renameEdits } from "./ts-refactor.js";
