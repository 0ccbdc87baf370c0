/**
 * Realistic values by property name, where the schema says no more than "a string" or "a number":
 * `email` gets an address, `city` a city, `latitude` a latitude. The sampler (sample.ts) still fits
 * the value to the schema's bounds and checks it against the pattern, so a hint can only help.
 */
import type { Faker } from "@faker-js/faker";

/** `first_name`, `firstName`, `First-Name` -> "firstname". */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** An E.164 number (+1 and ten digits): valid wherever a phone number is, and realistic. */
export function e164(faker: Faker): string {
  return `+1${faker.string.numeric({ length: 1, exclude: ["0", "1"] })}${faker.string.numeric(9)}`;
}

type Make = (faker: Faker) => string;

const sentence: Make = (f) => f.lorem.sentence({ min: 3, max: 8 });
const url: Make = (f) => f.internet.url();
const fullName: Make = (f) => f.person.fullName();

/** Exact names (as nameKey gives them). */
const EXACT: Record<string, Make> = {
  email: (f) => f.internet.email().toLowerCase(),
  emailaddress: (f) => f.internet.email().toLowerCase(),
  firstname: (f) => f.person.firstName(),
  givenname: (f) => f.person.firstName(),
  lastname: (f) => f.person.lastName(),
  surname: (f) => f.person.lastName(),
  familyname: (f) => f.person.lastName(),
  name: fullName,
  fullname: fullName,
  displayname: fullName,
  contactname: fullName,
  customername: fullName,
  username: (f) => f.internet.username(),
  login: (f) => f.internet.username(),
  nickname: (f) => f.internet.username(),
  handle: (f) => f.internet.username(),
  phone: e164,
  phonenumber: e164,
  mobile: e164,
  mobilephone: e164,
  telephone: e164,
  tel: e164,
  city: (f) => f.location.city(),
  town: (f) => f.location.city(),
  country: (f) => f.location.country(),
  countrycode: (f) => f.location.countryCode(),
  state: (f) => f.location.state(),
  province: (f) => f.location.state(),
  region: (f) => f.location.state(),
  street: (f) => f.location.streetAddress(),
  streetaddress: (f) => f.location.streetAddress(),
  address: (f) => f.location.streetAddress(),
  address1: (f) => f.location.streetAddress(),
  addressline1: (f) => f.location.streetAddress(),
  line1: (f) => f.location.streetAddress(),
  zip: (f) => f.location.zipCode(),
  zipcode: (f) => f.location.zipCode(),
  postalcode: (f) => f.location.zipCode(),
  postcode: (f) => f.location.zipCode(),
  company: (f) => f.company.name(),
  companyname: (f) => f.company.name(),
  organization: (f) => f.company.name(),
  organisation: (f) => f.company.name(),
  jobtitle: (f) => f.person.jobTitle(),
  title: (f) => f.lorem.words({ min: 2, max: 4 }),
  subject: (f) => f.lorem.words({ min: 2, max: 5 }),
  description: sentence,
  summary: sentence,
  bio: sentence,
  comment: sentence,
  note: sentence,
  notes: sentence,
  message: sentence,
  text: sentence,
  content: sentence,
  body: sentence,
  details: sentence,
  url,
  uri: url,
  link: url,
  href: url,
  website: url,
  homepage: url,
  image: (f) => f.image.url(),
  imageurl: (f) => f.image.url(),
  avatar: (f) => f.image.avatar(),
  avatarurl: (f) => f.image.avatar(),
  photo: (f) => f.image.url(),
  photourl: (f) => f.image.url(),
  picture: (f) => f.image.url(),
  thumbnail: (f) => f.image.url(),
  color: (f) => f.color.human(),
  colour: (f) => f.color.human(),
  currency: (f) => f.finance.currencyCode(),
  currencycode: (f) => f.finance.currencyCode(),
  iban: (f) => f.finance.iban(),
  language: () => "en",
  lang: () => "en",
  locale: () => "en-US",
  timezone: (f) => f.location.timeZone(),
  ip: (f) => f.internet.ipv4(),
  ipaddress: (f) => f.internet.ipv4(),
  domain: (f) => f.internet.domainName(),
  hostname: (f) => f.internet.domainName(),
  host: (f) => f.internet.domainName(),
  password: (f) => f.internet.password(),
  secret: (f) => f.string.alphanumeric(24),
  token: (f) => f.string.alphanumeric(32),
  apikey: (f) => f.string.alphanumeric(32),
  slug: (f) => f.lorem.slug(2),
  tag: (f) => f.lorem.word(),
  keyword: (f) => f.lorem.word(),
  label: (f) => f.lorem.word(),
  category: (f) => f.commerce.department(),
  sku: (f) => f.string.alphanumeric(8).toUpperCase(),
  code: (f) => f.string.alphanumeric(6).toUpperCase(),
  filename: (f) => f.system.fileName(),
  mimetype: (f) => f.system.mimeType(),
  contenttype: (f) => f.system.mimeType(),
  version: (f) => f.system.semver(),
  useragent: (f) => f.internet.userAgent(),
};

/** Name endings, tried in order when no exact name matched. */
const SUFFIXES: [string, Make][] = [
  ["email", EXACT.email],
  ["url", url],
  ["uri", url],
  ["link", url],
  ["phonenumber", e164],
  ["phone", e164],
  ["firstname", EXACT.firstname],
  ["lastname", EXACT.lastname],
  ["username", EXACT.username],
  ["name", (f) => capitalise(f.lorem.words({ min: 1, max: 3 }))],
  ["city", EXACT.city],
  ["country", EXACT.country],
  ["address", EXACT.address],
  ["description", sentence],
  ["message", sentence],
  ["id", (f) => f.string.uuid()],
];

/** A realistic string for a property of that name, or undefined when the name suggests none. */
export function stringByName(name: string, faker: Faker): string | undefined {
  const key = nameKey(name);
  if (!key) return undefined;
  const exact = EXACT[key];
  if (exact) return exact(faker);
  for (const [suffix, make] of SUFFIXES) if (key.length > suffix.length && key.endsWith(suffix)) return make(faker);
  if (/(at|date|time|timestamp)$/.test(key) && /(created|updated|modified|deleted|start|end|date)/.test(key))
    return faker.date.recent({ days: 90 }).toISOString();
  return undefined;
}

/** A realistic range for a number of that name: [min, max] and whether it has cents. */
export function numberRangeByName(name: string): { min: number; max: number; cents?: boolean } | undefined {
  const key = nameKey(name);
  if (key === "age") return { min: 18, max: 90 };
  if (key === "year") return { min: 1990, max: 2030 };
  if (key === "month") return { min: 1, max: 12 };
  if (key === "day") return { min: 1, max: 28 };
  if (key === "hour") return { min: 0, max: 23 };
  if (key === "minute" || key === "second") return { min: 0, max: 59 };
  if (/^(lat|latitude)$/.test(key)) return { min: -90, max: 90, cents: true };
  if (/^(lng|lon|long|longitude)$/.test(key)) return { min: -180, max: 180, cents: true };
  if (/(price|amount|cost|total|balance|fee|salary)$/.test(key)) return { min: 1, max: 1000, cents: true };
  if (/(quantity|qty|count)$/.test(key)) return { min: 1, max: 100 };
  if (/(rating|stars)$/.test(key)) return { min: 1, max: 5 };
  if (/(percent|percentage)$/.test(key)) return { min: 0, max: 100 };
  if (key === "port") return { min: 1024, max: 65535 };
  if (/(id)$/.test(key)) return { min: 1, max: 100_000 };
  return undefined;
}

/** `tags` -> `tag`, `categories` -> `category`: the name of one item of a list property. */
export function singular(name: string): string {
  if (/ies$/i.test(name)) return `${name.slice(0, -3)}y`;
  if (/(ss|us)$/i.test(name)) return name;
  if (/(ses|xes|zes|ches|shes)$/i.test(name)) return name.slice(0, -2);
  if (/s$/i.test(name)) return name.slice(0, -1);
  return name;
}

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
