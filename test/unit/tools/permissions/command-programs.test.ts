import { describe, expect, it } from "vitest";
import { programsOf } from "../../../../tools/permissions/command-programs.js";

describe("programsOf", () => {
  it.each([
    ["git status", ["git"]],
    ["npm test && node --test | tee out.txt; echo done", ["npm", "node", "tee", "echo"]],
    ["FOO=1 BAR=2 python3 -m pytest", ["python3"]],
    ["timeout 5 curl http://x", ["curl"]],
    ["env -i FOO=1 make check", ["make"]],
    ["echo hi > out.txt 2>&1", ["echo"]],
    ["cat < input.txt >> log 2> err", ["cat"]],
    ["ls &> all.txt", ["ls"]],
    ["echo 'a && b' \"c | d\"", ["echo"]],
    ["(cd sub && make) || exit 1", ["cd", "make", "exit"]],
    ["echo $(whoami) `date`", ["echo", "whoami", "date"]],
    ["if true; then ./run.sh; fi", ["true", "./run.sh"]],
    ["sleep 1 & wait", ["sleep", "wait"]],
    ["# only a comment", []],
  ])("%s", (command, expected) => {
    expect(programsOf(command)).toEqual(expected);
  });
});
