import { MemoryStore, memoryData } from "../../lib/session-store/memory.ts";
import { storeContract } from "./contract.ts";

const data = new WeakMap<object, ReturnType<typeof memoryData>>();
storeContract("memory", {
  async open(opts) {
    const d = memoryData();
    const s = new MemoryStore(opts, d);
    data.set(s, d);
    return s;
  },
  async reopen(store, opts) {
    const s = new MemoryStore(opts, data.get(store));
    data.set(s, data.get(store)!);
    return s;
  },
});
