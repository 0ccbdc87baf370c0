/**
 * A Faker of its own, seeded: what the sampler (sample.ts) and the seed's builders (seed/) draw from,
 * never the global one, so two workspaces or two answers never share a random sequence.
 */
import type { Faker } from "@faker-js/faker";
// The English entry point, not the package's main one: that one loads all ~70 locales (some 80
// modules, a tenth of the mock's start time) for the one locale used here.
import { faker as english } from "@faker-js/faker/locale/en";

/** A Faker seeded with `seed`, its reference date pinned to `now` so faker.date.* never reads the wall clock. */
export function newFaker(seed: number | number[], now: Date): Faker {
  // english.rawDefinitions is en over base; en alone defines everything the builders use, so the
  // values drawn are the same as with [en].
  const faker = new (english.constructor as typeof Faker)({ locale: english.rawDefinitions });
  faker.seed(seed);
  faker.setDefaultRefDate(now);
  return faker;
}
