/**
 * The TypeScript type of a value a JSON Schema accepts, for `defineTool`'s input inference: enough of JSON
 * Schema for tool inputs (type, properties, required, items, enum, const, anyOf/oneOf, nullable type lists).
 * Anything it does not model is `unknown`, never `any`. Write the schema inline (or `as const`) so its literal
 * types survive. Imports nothing.
 */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

type Primitive<T> = T extends "string" ? string : T extends "number" | "integer" ? number : T extends "boolean" ? boolean : T extends "null" ? null : T extends "array" ? unknown[] : T extends "object" ? Record<string, unknown> : unknown;

type Required<S> = S extends { required: readonly (infer R)[] } ? R : never;

type ObjectOf<P, R> = Simplify<{ -readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K]> } & { -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]> }>;

export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] }
      ? FromSchema<A>
      : S extends { oneOf: readonly (infer A)[] }
        ? FromSchema<A>
        : S extends { type: readonly (infer T)[] }
          ? Primitive<T>
          : S extends { type: "array"; items: infer I }
            ? FromSchema<I>[]
            : S extends { properties: infer P }
              ? ObjectOf<P, Required<S>>
              : S extends { type: infer T }
                ? Primitive<T>
                : unknown;
