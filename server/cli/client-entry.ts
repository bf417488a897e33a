// The entry of dist/cli.js, the prebuilt client part of `workcell` that bin/ runs.
import { runClientProgram } from "./client-main.js";

runClientProgram(process.argv.slice(2));
