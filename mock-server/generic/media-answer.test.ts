import { describe, expect, it } from "vitest";
import { mediaAnswer } from "./media-answer.js";

describe("mediaAnswer", () => {
  it("sends the document's text example as it is, with its type", () => {
    expect(mediaAnswer(200, { type: "text/csv", example: "a,b\n1,2\n" }, 1)).toEqual({
      status: 200,
      text: { contentType: "text/csv", body: "a,b\n1,2\n" },
    });
  });

  it("answers an image type with a valid image", () => {
    const png = mediaAnswer(200, { type: "image/png" }, 1).text!.body as Uint8Array;
    expect([...png.slice(0, 4)]).toEqual([137, 80, 78, 71]);
    const gif = mediaAnswer(200, { type: "image/gif" }, 1).text!.body as Uint8Array;
    expect(new TextDecoder().decode(gif.slice(0, 6))).toBe("GIF89a");
  });

  it("draws other bytes from the request's seed: the same request, the same bytes", () => {
    const a = mediaAnswer(200, { type: "application/pdf" }, 7).text!.body;
    expect(mediaAnswer(200, { type: "application/pdf" }, 7).text!.body).toEqual(a);
    expect(mediaAnswer(200, { type: "application/pdf" }, 8).text!.body).not.toEqual(a);
  });
});
