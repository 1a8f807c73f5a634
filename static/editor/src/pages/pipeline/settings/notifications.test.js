import { describe, expect, it } from "vitest";
import { bodyOf, linksText, whenText } from "./NotificationSettings.jsx";

const FORM = {
  kind: "email",
  url: "ignored",
  recipients: "a@example.com, b@example.com;c@example.com\n",
  on_failure: true,
  on_success: false,
  long_after_s: "",
  enabled: true,
};

describe("notification settings", () => {
  it("splits addresses and sends no URL for an e-mail", () => {
    expect(bodyOf(FORM)).toEqual({
      kind: "email",
      url: "",
      recipients: ["a@example.com", "b@example.com", "c@example.com"],
      on_failure: true,
      on_success: false,
      long_after_s: null,
      enabled: true,
    });
  });
  it("sends a webhook's URL, trimmed, with no recipients and a number of seconds", () => {
    const body = bodyOf({
      ...FORM,
      kind: "webhook",
      url: " https://hooks.example.com/x ",
      long_after_s: "600",
    });
    expect([body.url, body.recipients, body.long_after_s]).toEqual([
      "https://hooks.example.com/x",
      [],
      600,
    ]);
  });
  it("says when a notification fires", () => {
    expect(whenText({ on_failure: true, on_success: true, long_after_s: 60 })).toBe(
      "when a run fails, succeeds, runs over 60 s",
    );
    expect(whenText({ on_failure: false, on_success: false, long_after_s: null })).toBe("never");
  });
});

describe("links in messages", () => {
  it("says where the links to runs start and whether the setting or the address chose it", () => {
    expect(
      linksText({ links_start_with: "https://pw.example.org", links_from: "PIPEWRIGHT_BASE_URL" }),
    ).toBe("Links to runs start with https://pw.example.org (PIPEWRIGHT_BASE_URL).");
    expect(linksText({ links_start_with: "http://host:8000", links_from: "saved_at" })).toBe(
      "Links to runs start with http://host:8000, the address this was saved at; " +
        "set PIPEWRIGHT_BASE_URL to choose another.",
    );
    expect(linksText({ links_start_with: "", links_from: "saved_at" })).toBe("");
  });
});
