import type { CodeLocation } from "./ts-operations.js";

/** One line per location: `path:line:column [kind name]  text`, as an agent reads them. */
export function renderLocations(locations: readonly CodeLocation[]): string {
  return locations
    .map(
      (location) =>
        `${location.path}:${location.line}:${location.column}${location.kind ? ` [${location.kind}${location.name ? ` ${location.name}` : ""}]` : location.isDefinition ? " [definition]" : ""}  ${location.text}`,
    )
    .join("\n");
}
