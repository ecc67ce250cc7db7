/**
 * Elysia compiles a route's validators the first time the route runs, one TypeBox
 * `TypeCompiler.Compile` per response status, each given every API model as a reference (and
 * TypeBox checks each reference again on every compile). For a response schema marked unchecked
 * (`response-checks.ts`) the compiled check is never called: only the schema's cleaner runs. So a
 * marked schema's check is compiled on its first use instead, if one ever comes: the first
 * `POST /session` is ~10 compiles lighter. Unmarked schemas (bodies, queries, params, headers)
 * compile as before, and a marked one whose check is asked for gets the same compiled check.
 */
import type { TSchema } from "@sinclair/typebox";
import { TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";

let installed = false;

/** Makes `TypeCompiler.Compile` defer the work for schemas that `isUnchecked` admits. Idempotent. */
export function compileLazilyWhen(isUnchecked: (schema: TSchema) => boolean): void {
  if (installed) return;
  installed = true;
  const compile = TypeCompiler.Compile;
  TypeCompiler.Compile = (<T extends TSchema>(schema: T, references: TSchema[] = []) =>
    isUnchecked(schema) ? deferred(schema, references, compile) : compile(schema, references)) as typeof TypeCompiler.Compile;
}

/**
 * A TypeCheck whose generated code is built when first read: its methods (Check, Code, Decode,
 * Encode) read `checkFunc`, `code` and `hasTransform`, which compile then. Elysia also writes
 * members on the checks it gets (e.g. `hasTransform`); a write keeps its value, as on a plain one.
 */
export function deferred<T extends TSchema>(schema: T, references: TSchema[], compile: typeof TypeCompiler.Compile): TypeCheck<T> {
  let compiled: TypeCheck<T> | undefined;
  const real = () => (compiled ??= compile(schema, references));
  const check = Object.create(TypeCheck.prototype) as TypeCheck<T>;
  Object.assign(check, { schema, references });
  const written = new Map<string, unknown>();
  for (const member of ["checkFunc", "code", "hasTransform"] as const)
    Object.defineProperty(check, member, {
      get: () => (written.has(member) ? written.get(member) : (real() as unknown as Record<string, unknown>)[member]),
      set: (value: unknown) => written.set(member, value),
      enumerable: true,
    });
  return check;
}
