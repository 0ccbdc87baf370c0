/** npm start: the mock on PORT/HOST, printing where it is and how to call it. */
import { helpText, integerOption, readConfig } from "./config.js";
import { loadState, saveState } from "./persistence.js";
import { startMock } from "./server.js";

async function main(): Promise<void> {
  let config;
  try {
    config = readConfig(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${helpText()}`);
    process.exit(2);
  }
  if (config.help) {
    console.log(helpText());
    return;
  }
  const v = config.values;
  const mode = v.clock === "virtual" ? "virtual" : v.clock === "real" ? "real" : undefined;
  if (!mode) throw new Error(`--clock must be real or virtual, got "${v.clock}"`);
  const speed = Number(v["clock-speed"]);
  if (!(speed > 0)) throw new Error(`--clock-speed must be a positive number, got "${v["clock-speed"]}"`);
  const start = v["clock-start"] ? new Date(v["clock-start"]) : undefined;
  if (start && Number.isNaN(start.getTime())) throw new Error(`--clock-start must be an ISO 8601 time, got "${v["clock-start"]}"`);
  const validate = v["validate-responses"] === "" ? process.env.NODE_ENV !== "production" : v["validate-responses"] === "on";
  const stateFile = v["state-file"] || undefined;
  const saveEvery = integerOption(v, "save-interval", 1, 86_400);
  const restore = stateFile ? await loadState(stateFile) : undefined;

  const running = await startMock({
    port: integerOption(v, "port", 0, 65535),
    host: v.host,
    apiKey: v["api-key"],
    seed: integerOption(v, "seed", 0, 4294967295),
    clock: { mode, speed, start },
    validateResponses: validate,
    journalCapacity: integerOption(v, "journal-size", 0, 1_000_000),
    webhooks: { outboxCapacity: integerOption(v, "outbox-size", 1, 1_000_000) },
    restore,
  });
  const save = async () => {
    if (stateFile) await saveState(stateFile, running.mock.services.workspaces, running.mock.services.clock.iso());
  };
  if (stateFile) {
    // Saves do not overlap: a slow disk delays the next one instead of racing it.
    let saving = Promise.resolve();
    setInterval(() => {
      saving = saving.then(save).catch((e) => console.error(`state not saved: ${(e as Error).message}`));
    }, saveEvery * 1000).unref();
    console.log(`  State file:         ${stateFile} (${restore ? "restored" : "new"}; saved every ${saveEvery} s and on exit)`);
  }
  console.log(`Mock of the Conversational Agent Platform API listening on ${running.url}/v1`);
  console.log(`  API key (X-API-Key): ${running.apiKey}`);
  console.log(`  Docs:               ${running.url}/docs`);
  console.log(`  Control plane:      ${running.url}/__mock/health`);
  console.log(`  Clock: ${mode}${mode === "real" ? ` x${speed}` : ""}; response validation ${validate ? "on" : "off"}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing requests in flight`);
    await running.close();
    await save();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(2);
});
