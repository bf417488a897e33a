import { describe, expect, it } from "vitest";
import { checkGherkin } from "../../../tools/quality/gherkin-check.js";

const good = `@stats
Feature: Averages
  Background:
    Given a list of numbers

  Scenario: mean of three numbers
    Given the numbers 1, 2 and 3
    When I take the mean
    Then I get 2

  Scenario Outline: means
    Given the numbers <list>
    Then the mean is <mean>
    Examples:
      | list  | mean |
      | 1,3   | 2    |
`;

describe("checkGherkin", () => {
  it("accepts a well-formed feature", () => {
    expect(checkGherkin(good)).toEqual([]);
  });

  it("reports a scenario without steps, steps outside scenarios, stray Examples and a missing Feature", () => {
    expect(checkGherkin("Feature: x\n  Scenario: empty\n  Scenario: ok\n    Given y\n")).toEqual([
      { line: 2, message: "the Scenario starting here has no steps" },
    ]);
    expect(checkGherkin("Feature: x\n  Given y\n")[0]?.message).toMatch(/outside a Scenario/);
    expect(checkGherkin("Feature: x\n  Scenario: s\n    Given y\n  Examples:\n")[0]?.message).toMatch(
      /Examples must follow a Scenario Outline/,
    );
    expect(checkGherkin("Scenario: s\n  Given y\n").map((p) => p.message)).toEqual(
      expect.arrayContaining(["Scenario before any Feature", "no Feature: line"]),
    );
    expect(checkGherkin('Feature: x\n  Scenario: s\n    Given y\n    """\n    text\n')[0]?.message).toMatch(
      /never closed/,
    );
  });
});
