/**
 * `true` when `A` and `B` are the same type (each assignable to the other, with the same optional and readonly
 * members), `false` otherwise. Each schema file states `true satisfies Equals<Plain, z.infer<typeof Schema>>`,
 * so a schema and the plain type written out beside it (events/types/) cannot drift apart: `npm run check` fails.
 */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
