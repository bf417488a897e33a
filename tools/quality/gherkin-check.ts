/** A problem in a .feature file. */
export interface GherkinProblem {
  line: number;
  message: string;
}

const KEYWORDS = /^(Feature|Rule|Background|Scenario|Scenario Outline|Scenario Template|Example|Examples|Scenarios):/;
const STEP = /^(Given|When|Then|And|But|\*)\s+\S/;

/**
 * Checks the structure of a Gherkin feature file: one Feature, scenarios with at least one
 * step, steps only inside a scenario or background, Examples only after an outline, table
 * rows and doc strings well-formed. Pure; not a full Gherkin parser, but it catches what
 * agents get wrong.
 */
export function checkGherkin(text: string): GherkinProblem[] {
  const problems: GherkinProblem[] = [];
  let features = 0;
  let section: "none" | "feature" | "scenario" | "outline" | "background" | "examples" = "none";
  let sectionLine = 0;
  let steps = 0;
  let docString = false;
  const closeScenario = (line: number) => {
    if ((section === "scenario" || section === "outline" || section === "background") && steps === 0) {
      problems.push({
        line: sectionLine,
        message: `the ${section === "background" ? "Background" : "Scenario"} starting here has no steps`,
      });
    }
    void line;
  };
  const lines = text.split("\n");
  lines.forEach((raw, index) => {
    const line = raw.trim();
    const number = index + 1;
    if (line.startsWith('"""') || line.startsWith("```")) {
      docString = !docString;
      return;
    }
    if (docString || line === "" || line.startsWith("#") || line.startsWith("@")) return;
    const keyword = KEYWORDS.exec(line)?.[1];
    if (keyword !== undefined) {
      closeScenario(number);
      steps = 0;
      sectionLine = number;
      if (keyword === "Feature") {
        features += 1;
        section = "feature";
      } else if (keyword === "Rule") section = "feature";
      else if (keyword === "Background") section = "background";
      else if (keyword.startsWith("Scenario Outline") || keyword === "Scenario Template") section = "outline";
      else if (keyword === "Examples" || keyword === "Scenarios") {
        if (section !== "outline" && section !== "examples")
          problems.push({ line: number, message: "Examples must follow a Scenario Outline" });
        section = "examples";
        steps = 1;
      } else section = "scenario";
      if (features === 0 && keyword !== "Feature")
        problems.push({ line: number, message: `${keyword} before any Feature` });
      return;
    }
    if (STEP.test(line)) {
      if (section === "scenario" || section === "outline" || section === "background") steps += 1;
      else problems.push({ line: number, message: `a step outside a Scenario or Background: "${line}"` });
      return;
    }
    if (line.startsWith("|")) {
      if (!line.endsWith("|")) problems.push({ line: number, message: "a table row must end with |" });
      return;
    }
    if (section === "none") problems.push({ line: number, message: `unexpected text before the Feature: "${line}"` });
  });
  closeScenario(lines.length);
  if (docString) problems.push({ line: lines.length, message: 'a doc string (""") is never closed' });
  if (features === 0) problems.push({ line: 1, message: "no Feature: line" });
  if (features > 1) problems.push({ line: 1, message: "more than one Feature in one file" });
  return problems;
}
