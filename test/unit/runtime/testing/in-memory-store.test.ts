import { describeStateStoreConformance } from "../../../conformance/state-store-conformance.js";
import { InMemoryStateStore } from "../../../../runtime/testing/in-memory-store.js";

describeStateStoreConformance("InMemoryStateStore", async () => new InMemoryStateStore());
