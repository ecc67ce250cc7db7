/**
 * Response schemas marked unchecked are compiled on first use, not when Elysia builds a route's
 * validators (src/server/schemas/lazy-compile.ts): the check a deferred compile gives answers as the
 * compiled one does, and is built once; unmarked schemas (request bodies) still compile and refuse.
 */
import { expect, test } from "bun:test";
import { Type, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Elysia, t } from "elysia";
import { deferred } from "../../../src/server/schemas/lazy-compile.ts";
import { uncheckResponses } from "../../../src/server/schemas/response-checks.ts";

const Answer = () => Type.Object({ id: Type.String(), count: Type.Integer({ minimum: 0 }) });

test("a deferred check compiles on its first use, once, and answers as the compiled one", () => {
  const schema = Answer();
  let compiles = 0;
  const counting = (<T extends TSchema>(s: T, refs: TSchema[] = []) => (compiles++, TypeCompiler.Compile(s, refs))) as typeof TypeCompiler.Compile;
  const check = deferred(schema, [], counting);
  expect(compiles).toBe(0);
  const good = { id: "a", count: 2 };
  const bad = { id: "a", count: -1 };
  expect(check.Check(good)).toBe(true);
  expect(check.Check(bad)).toBe(false);
  expect(compiles).toBe(1);
  expect(check.Decode(good)).toEqual(good);
  expect(() => check.Decode(bad)).toThrow();
  expect(() => check.Encode(bad)).toThrow();
  expect(check.Code()).toBe(TypeCompiler.Compile(schema).Code());
  expect([...check.Errors(bad)].length).toBeGreaterThan(0);
  expect((check as unknown as { hasTransform: boolean }).hasTransform).toBe(false);
  expect(compiles).toBe(1);
  // What Elysia writes on a check it got stays written.
  (check as unknown as { hasTransform: boolean }).hasTransform = true;
  expect((check as unknown as { hasTransform: boolean }).hasTransform).toBe(true);
});

test("once an app's responses are unchecked, a marked schema's compile is deferred and an unmarked one's is not", async () => {
  const body = t.Object({ n: t.Integer({ minimum: 1 }) });
  const response = t.Object({ id: t.String() });
  const app = new Elysia({ normalize: "typebox" }).post("/x", ({ body }) => ({ id: String(body.n), extra: 1 }), { body, response: { 200: response } });
  uncheckResponses(app.routes as never);
  const accessor = (s: TSchema) => Object.getOwnPropertyDescriptor(TypeCompiler.Compile(s), "checkFunc")?.get !== undefined;
  expect(accessor(response)).toBe(true);
  expect(accessor(body)).toBe(false);
  // The route still refuses a bad body, and still normalises its answer.
  const post = (json: unknown) => app.handle(new Request("http://localhost/x", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) }));
  expect((await post({ n: 0 })).status).toBe(422);
  const ok = await post({ n: 3 });
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ id: "3" });
});
