import { describe, expect, it } from "vitest";
import { endToEnd } from "./hop-by-hop.js";

describe("endToEnd", () => {
  it("drops hop-by-hop headers, those Connection names, and the ones asked", () => {
    expect(
      endToEnd(
        {
          connection: "keep-alive, X-Trace",
          "keep-alive": "timeout=5",
          "x-trace": "1",
          te: "trailers",
          upgrade: "h2c",
          "proxy-authorization": "Basic x",
          "transfer-encoding": "chunked",
          host: "door:4010",
          "content-type": "application/json",
          "set-cookie": ["a=1", "b=2"],
          accept: undefined,
        },
        ["host"],
      ),
    ).toEqual({ "content-type": "application/json", "set-cookie": ["a=1", "b=2"] });
  });
});
