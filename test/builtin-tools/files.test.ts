import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostIn, run, tmpDir, write, type Host } from "./helpers.ts";

let dir: string;
let host: Host;
beforeAll(async () => {
  dir = tmpDir();
  host = await hostIn(dir);
});
afterAll(async () => {
  await host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("Read", () => {
  it("numbers lines like cat -n, with offset and limit", async () => {
    write(dir, "r/lines.txt", Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    const all = await run(host, "Read", { file_path: "r/lines.txt" });
    expect(all.isError).toBe(false);
    expect(all.text.split("\n")[0]).toBe("     1\tline 1");
    expect(all.text).toContain("    10\tline 10");
    const page = await run(host, "Read", { file_path: path.join(dir, "r/lines.txt"), offset: 4, limit: 3 });
    expect(page.text.split("\n").slice(0, 3)).toEqual(["     4\tline 4", "     5\tline 5", "     6\tline 6"]);
    expect(page.text).toContain("offset 7");
    expect(page.text).toContain("of 10");
  });

  it("normalises file_path to an absolute path before rules and hooks see it", async () => {
    write(dir, "r/n.txt", "x\n");
    const r = await run(host, "Read", { file_path: "./r/../r/n.txt" });
    expect(r.o.input).toEqual({ file_path: path.join(dir, "r/n.txt") });
    const home = await run(host, "Read", { file_path: "~/definitely-missing-th-file" });
    expect((home.o.input as { file_path: string }).file_path).toBe(path.join(os.homedir(), "definitely-missing-th-file"));
  });

  it("cuts over-long lines with a marker and reads a file without trailing newline", async () => {
    write(dir, "r/long.txt", "a".repeat(5000) + "\nlast");
    const r = await run(host, "Read", { file_path: "r/long.txt" });
    expect(r.text).toContain("[line truncated: 3000 more characters]");
    expect(r.text).toContain("     2\tlast");
  });

  it("errors on a directory, suggesting Glob", async () => {
    fs.mkdirSync(path.join(dir, "r/sub"), { recursive: true });
    const r = await run(host, "Read", { file_path: "r/sub" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/is a directory/);
    expect(r.text).toContain("Glob");
  });

  it("errors on a binary file", async () => {
    write(dir, "r/bin.dat", Buffer.from([1, 2, 0, 3, 0, 0, 255, 10]));
    const r = await run(host, "Read", { file_path: "r/bin.dat" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/binary file/);
  });

  it("returns png images as image content", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f1d0a40000000049454e44ae426082", "hex");
    write(dir, "r/dot.png", png);
    const r = await run(host, "Read", { file_path: "r/dot.png" });
    expect(r.o.result.content.find((c) => c.type === "image")).toMatchObject({ type: "image", mimeType: "image/png", data: png.toString("base64") });
  });

  it("suggests similar names for a missing file", async () => {
    write(dir, "r/config.json", "{}");
    const r = await run(host, "Read", { file_path: "r/confg.json" });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(path.join(dir, "r/config.json"));
    const deep = await run(host, "Read", { file_path: "r/nope/x.txt" });
    expect(deep.text).toMatch(/does not exist either/);
  });

  it("ends a page early at the character budget, by whole lines, with an offset to continue", async () => {
    write(dir, "r/wide.txt", Array.from({ length: 300 }, (_, i) => `${i + 1} ${"w".repeat(1500)}`).join("\n"));
    const r = await run(host, "Read", { file_path: "r/wide.txt" });
    const n = (r.o.result.meta as { numLines: number }).numLines;
    expect(n).toBeGreaterThan(50);
    expect(n).toBeLessThan(300);
    expect(r.text).toContain(`offset ${n + 1}`);
    expect(r.text.length).toBeLessThan(101_000);
  });

  it("says when offset is past the end, and handles empty files", async () => {
    write(dir, "r/three.txt", "a\nb\nc\n");
    const r = await run(host, "Read", { file_path: "r/three.txt", offset: 10 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/has 3 lines/);
    write(dir, "r/empty.txt", "");
    expect((await run(host, "Read", { file_path: "r/empty.txt" })).text).toMatch(/empty/);
  });

  it("pages a large file without reading it whole (last page via offset)", async () => {
    const f = path.join(dir, "r/big.txt");
    const fd = fs.openSync(f, "w");
    for (let i = 0; i < 20; i++) fs.writeSync(fd, Array.from({ length: 10_000 }, (_, j) => `row ${i * 10_000 + j + 1}`).join("\n") + "\n");
    fs.closeSync(fd);
    const r = await run(host, "Read", { file_path: f, offset: 199_999 });
    expect(r.text.split("\n")).toEqual(["199999\trow 199999", "200000\trow 200000"]);
    const first = await run(host, "Read", { file_path: f });
    expect(first.text.split("\n").filter((l) => /^\s+\d+\t/.test(l))).toHaveLength(2000);
    expect(first.o.result.meta).toMatchObject({ numLines: 2000, totalLines: 200_000 });
    expect(first.text).toContain("of 200000");
  });
});

describe("Write", () => {
  it("creates files and parent directories, reporting created", async () => {
    const r = await run(host, "Write", { file_path: "w/a/b/new.txt", content: "one\ntwo\n" });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/created/);
    expect(r.o.result.meta).toMatchObject({ type: "create", filePath: path.join(dir, "w/a/b/new.txt"), success: true });
    expect(fs.readFileSync(path.join(dir, "w/a/b/new.txt"), "utf8")).toBe("one\ntwo\n");
    // own writes count as read: a second write goes through
    const again = await run(host, "Write", { file_path: "w/a/b/new.txt", content: "three\n" });
    expect(again.text).toMatch(/updated/);
    expect(again.o.result.meta).toMatchObject({ type: "update" });
  });

  it("refuses to overwrite a file that was not read first, and writes nothing", async () => {
    const f = write(dir, "w/existing.txt", "keep me\n");
    const r = await run(host, "Write", { file_path: f, content: "clobber" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/has not been read yet/);
    expect(r.text).toContain("Read");
    expect(fs.readFileSync(f, "utf8")).toBe("keep me\n");
    await run(host, "Read", { file_path: f });
    expect((await run(host, "Write", { file_path: f, content: "ok now" })).isError).toBe(false);
    expect(fs.readFileSync(f, "utf8")).toBe("ok now");
  });

  it("refuses a stale write after the file changed on disk, until it is read again", async () => {
    const f = write(dir, "w/stale.txt", "v1\n");
    await run(host, "Read", { file_path: f });
    fs.writeFileSync(f, "v2 from someone else\n");
    fs.utimesSync(f, new Date(), new Date(Date.now() + 5000));
    const r = await run(host, "Write", { file_path: f, content: "mine" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/modified since it was read/);
    expect(fs.readFileSync(f, "utf8")).toBe("v2 from someone else\n");
    await run(host, "Read", { file_path: f });
    expect((await run(host, "Write", { file_path: f, content: "mine" })).isError).toBe(false);
  });

  it("accepts a touched but unchanged file (content hash)", async () => {
    const f = write(dir, "w/touched.txt", "same\n");
    await run(host, "Read", { file_path: f });
    fs.utimesSync(f, new Date(), new Date(Date.now() + 10_000));
    expect((await run(host, "Write", { file_path: f, content: "new" })).isError).toBe(false);
  });

  it("read state is per session", async () => {
    const f = write(dir, "w/session.txt", "s\n");
    await run(host, "Read", { file_path: f }, "s1");
    expect((await run(host, "Write", { file_path: f, content: "x" }, "s2")).isError).toBe(true);
    expect((await run(host, "Write", { file_path: f, content: "x" }, "s1")).isError).toBe(false);
  });

  it("writes atomically: no temp files left, mode kept", async () => {
    const f = write(dir, "w/atomic/script.sh", "#!/bin/sh\n");
    fs.chmodSync(f, 0o755);
    await run(host, "Read", { file_path: f });
    await run(host, "Write", { file_path: f, content: "#!/bin/sh\necho hi\n" });
    expect(fs.readdirSync(path.dirname(f))).toEqual(["script.sh"]);
    expect(fs.statSync(f).mode & 0o777).toBe(0o755);
  });

  it("rejects a directory path and unknown fields", async () => {
    fs.mkdirSync(path.join(dir, "w/isdir"), { recursive: true });
    expect((await run(host, "Write", { file_path: "w/isdir", content: "x" })).text).toMatch(/is a directory/);
    const bad = await run(host, "Write", { file_path: "w/x", content: "x", mode: "append" });
    expect(bad.o.status).toBe("invalid-input");
    expect(bad.text).toMatch(/unexpected field "mode"/);
  });
});

describe("Edit", () => {
  const src = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n";

  it("replaces a unique string and shows the edited region", async () => {
    const f = write(dir, "e/unique.ts", src);
    await run(host, "Read", { file_path: f });
    const r = await run(host, "Edit", { file_path: f, old_string: "function b() {\n  return 1;", new_string: "function b() {\n  return 2;" });
    expect(r.isError).toBe(false);
    expect(r.text).toContain("return 2;");
    expect(fs.readFileSync(f, "utf8")).toBe(src.replace("function b() {\n  return 1;", "function b() {\n  return 2;"));
    expect(r.o.result.meta).toMatchObject({ filePath: f, replacements: 1 });
  });

  it("a non-unique old_string changes nothing and says how many and where", async () => {
    const f = write(dir, "e/dup.ts", src);
    await run(host, "Read", { file_path: f });
    const r = await run(host, "Edit", { file_path: f, old_string: "return 1;", new_string: "return 3;" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/matches 2 places/);
    expect(r.text).toMatch(/lines 2, 6/);
    expect(r.text).toContain("replace_all");
    expect(fs.readFileSync(f, "utf8")).toBe(src);
    const all = await run(host, "Edit", { file_path: f, old_string: "return 1;", new_string: "return $&3;", replace_all: true });
    expect(all.isError).toBe(false);
    expect(fs.readFileSync(f, "utf8")).toBe(src.split("return 1;").join("return $&3;")); // literal, no $& expansion
  });

  it("a missing old_string is an error that points at a whitespace-insensitive near match", async () => {
    const f = write(dir, "e/near.ts", src);
    await run(host, "Read", { file_path: f });
    const r = await run(host, "Edit", { file_path: f, old_string: "function a() {\n    return 1;", new_string: "x" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/not found/);
    expect(r.text).toMatch(/ignoring whitespace differences exists at line 1-2/);
    const none = await run(host, "Edit", { file_path: f, old_string: "nothing like it", new_string: "x" });
    expect(none.text).toMatch(/Read the file again/);
    expect(fs.readFileSync(f, "utf8")).toBe(src);
  });

  it("identical old and new strings are rejected", async () => {
    const f = write(dir, "e/same.ts", src);
    const r = await run(host, "Edit", { file_path: f, old_string: "a", new_string: "a" });
    expect(r.o.status).toBe("invalid-input");
    expect(r.text).toMatch(/identical/);
  });

  it("requires a prior Read and refuses stale edits", async () => {
    const f = write(dir, "e/unread.ts", src);
    const r = await run(host, "Edit", { file_path: f, old_string: "function a", new_string: "function z" });
    expect(r.text).toMatch(/has not been read yet/);
    await run(host, "Read", { file_path: f });
    fs.appendFileSync(f, "// changed\n");
    const stale = await run(host, "Edit", { file_path: f, old_string: "function a", new_string: "function z" });
    expect(stale.text).toMatch(/modified since it was read/);
    expect(fs.readFileSync(f, "utf8")).toBe(src + "// changed\n");
  });

  it("keeps CRLF line endings", async () => {
    const f = write(dir, "e/crlf.txt", "one\r\ntwo\r\nthree\r\n");
    await run(host, "Read", { file_path: f });
    const r = await run(host, "Edit", { file_path: f, old_string: "one\ntwo", new_string: "uno\ndos" });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(f, "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("an empty old_string creates a missing file; a missing file otherwise gets a suggestion", async () => {
    const r = await run(host, "Edit", { file_path: "e/created.txt", old_string: "", new_string: "hi\n" });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(path.join(dir, "e/created.txt"), "utf8")).toBe("hi\n");
    const miss = await run(host, "Edit", { file_path: "e/creatd.txt", old_string: "a", new_string: "b" });
    expect(miss.text).toContain(path.join(dir, "e/created.txt"));
  });
});

describe("trailing whitespace and the parsed input (recorded: write-edit-whitespace, write-edit-results)", () => {
  it("Write and Edit strip each line's trailing whitespace outside markdown, line endings kept; the input the call keeps is the stripped one", async () => {
    const w = await run(host, "Write", { file_path: path.join(dir, "ws/a.txt"), content: "one  \r\ntwo\t\nthree \n" });
    expect(fs.readFileSync(path.join(dir, "ws/a.txt"), "utf8")).toBe("one\r\ntwo\nthree\n");
    expect((w.o.input as { content: string }).content).toBe("one\r\ntwo\nthree\n");
    await run(host, "Write", { file_path: path.join(dir, "ws/b.MD"), content: "hard  \nbreak\n" });
    expect(fs.readFileSync(path.join(dir, "ws/b.MD"), "utf8")).toBe("hard  \nbreak\n");
    const f = write(dir, "ws/c.js", "keep\n");
    await run(host, "Read", { file_path: f });
    const e = await run(host, "Edit", { file_path: f, old_string: "keep", new_string: "kept  \nmore\t" });
    expect(fs.readFileSync(f, "utf8")).toBe("kept\nmore\n");
    expect(e.o.input).toMatchObject({ new_string: "kept\nmore", replace_all: false });
  });

  it("a missing or ambiguous old_string in a file read this session is refused at validation, before any hook or prompt", async () => {
    const f = write(dir, "ws/d.txt", "x\nx\n");
    await run(host, "Read", { file_path: f });
    const r = await run(host, "Edit", { file_path: f, old_string: "x", new_string: "y" });
    expect([r.o.status, r.isError]).toEqual(["invalid-input", true]);
    expect(r.text).toMatch(/^Invalid input for Edit: old_string matches 2 places/);
    expect(r.o.trace.some((t) => t.stage.startsWith("hook."))).toBe(false);
  });
});

describe("Edit's early old_string check leaves other failures to the call", () => {
  it("a path under a file (ENOTDIR) or a file never read gets the call's own message, not an invalid-input", async () => {
    const f = write(dir, "pre/plain.txt", "a\n");
    await run(host, "Read", { file_path: f });
    const under = await run(host, "Edit", { file_path: path.join(f, "sub.txt"), old_string: "a", new_string: "b" });
    expect(under.o.status).not.toBe("invalid-input");
    const unread = write(dir, "pre/unread.txt", "a\na\n");
    const r = await run(host, "Edit", { file_path: unread, old_string: "a", new_string: "b" });
    expect(r.o.status).not.toBe("invalid-input");
    expect(r.text).toMatch(/has not been read yet/);
  });
});
