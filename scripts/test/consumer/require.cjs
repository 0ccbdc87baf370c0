/**
 * CommonJS, as a Jest setup or an older tool loads the kit: require() of every entry. The kit is ES
 * modules only; require() of an ES module works without a flag from Node 20.19 and 22.12 on, hence the
 * lower bounds of package.json `engines`. Prints one JSON line that the consumer test reads.
 */
const out = {};
for (const entry of ["client", "server", "msw", "webhooks", "dashboard"]) {
  try {
    out[entry] = Object.keys(require(`agent-platform-mock-kit/${entry}`)).sort();
  } catch (error) {
    out[entry] = `require failed: ${error.code ?? ""} ${error.message.split("\n")[0]}`;
  }
}
out.specTitle = require("agent-platform-mock-kit/openapi.json").info.title;
console.log(JSON.stringify(out));
