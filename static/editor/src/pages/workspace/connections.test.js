import { describe, expect, it } from "vitest";
import {
  buildUrl,
  connectionForm,
  missingField,
  parseUrl,
  testBody,
  withPastedUrl,
} from "./connections.js";

const fields = (overrides) => ({ ...connectionForm(), ...overrides });

describe("the URL the connection form builds", () => {
  it("names the driver, user, host, port, database and options of a server", () => {
    const form = fields({
      host: "db.example.com",
      port: "5433",
      database: "shop",
      user: "reader",
      options: "sslmode=require",
    });
    expect(buildUrl(form)).toBe(
      "postgresql+psycopg://reader@db.example.com:5433/shop?sslmode=require",
    );
  });

  it("leaves out what is empty and quotes what a URL cannot hold", () => {
    expect(buildUrl(fields({ dialect: "mysql", host: "db", user: "ana@corp" }))).toBe(
      "mysql+pymysql://ana%40corp@db",
    );
    expect(buildUrl(fields({ host: "::1", database: "x" }))).toBe("postgresql+psycopg://[::1]/x");
  });

  it("makes an SQLite URL of a workspace file", () => {
    expect(buildUrl(fields({ dialect: "sqlite", database: "data/shop.db", host: "x" }))).toBe(
      "sqlite:///data/shop.db",
    );
  });

  it("never holds the password", () => {
    expect(buildUrl(fields({ host: "db", user: "u", password: "s3cret" }))).not.toContain("s3cret");
  });

  it("says which field is missing", () => {
    expect(missingField(fields({}))).toBe("the host");
    expect(missingField(fields({ host: "db", port: "54x" }))).toBe("a port that is a number");
    expect(missingField(fields({ dialect: "sqlite" }))).toBe("the SQLite file");
    expect(missingField(fields({ host: "db" }))).toBe("");
  });
});

describe("a pasted URL", () => {
  it("fills the fields, and builds back the same URL", () => {
    const url = "postgresql+psycopg2://reader@db.example.com:5433/shop?sslmode=require";
    const parsed = parseUrl(url);
    expect(parsed).toMatchObject({
      dialect: "postgresql",
      driver: "postgresql+psycopg2",
      host: "db.example.com",
      port: "5433",
      database: "shop",
      user: "reader",
      options: "sslmode=require",
    });
    expect(buildUrl(parsed)).toBe(url);
  });

  it("reads MariaDB, SQLite and IPv6 hosts", () => {
    expect(parseUrl("mariadb+pymysql://u@h/db")).toMatchObject({ dialect: "mysql", host: "h" });
    expect(parseUrl("sqlite:///shop.db")).toMatchObject({ dialect: "sqlite", database: "shop.db" });
    expect(parseUrl("postgresql://[::1]:5432/x")).toMatchObject({ host: "::1", port: "5432" });
  });

  it("moves a password into the password field", () => {
    const form = withPastedUrl(connectionForm(), "postgresql://u:p%40ss@db/x");
    expect(form.password).toBe("p@ss");
    expect(buildUrl(form)).toBe("postgresql://u@db/x");
  });

  it("that is no database URL fills nothing", () => {
    expect(parseUrl("hello")).toBeNull();
    expect(parseUrl("http://example.com")).toBeNull();
    expect(withPastedUrl(connectionForm(), "nonsense")).toBeNull();
  });
});

describe("the test request", () => {
  it("uses the stored password of a connection being edited unless one is typed", () => {
    const form = connectionForm({ name: "shop", url: "postgresql://u@db/x", read_only: true });
    expect(testBody(form, false)).toEqual({ url: "postgresql://u@db/x", name: "shop" });
    expect(testBody({ ...form, password: "typed" }, false).password).toBe("typed");
    expect(testBody({ ...form, name: "shop" }, true)).toEqual({ url: "postgresql://u@db/x" });
  });
});
