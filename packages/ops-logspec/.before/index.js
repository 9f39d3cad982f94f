// packages/ops-logspec/.before/src/errors.ts
var LogspecError = class extends Error {
  name = "LogspecError";
  code;
  constructor(code, message, options) {
    super(message, options);
    this.code = code;
  }
};
function isLogspecError(value) {
  return value instanceof LogspecError || value instanceof Error && value.name === "LogspecError" && "code" in value;
}

// packages/ops-logspec/.before/src/levels.ts
var LEVEL_SEVERITY = {
  payload: -2,
  debug: -1,
  info: 0,
  warn: 1,
  error: 2,
  dpanic: 3,
  panic: 4,
  fatal: 5
};
var NAMES = Object.assign(/* @__PURE__ */ Object.create(null), {
  PAYLOAD: "payload",
  payload: "payload",
  DEBUG: "debug",
  debug: "debug",
  INFO: "info",
  info: "info",
  WARNING: "warn",
  WARN: "warn",
  warning: "warn",
  warn: "warn",
  ERROR: "error",
  error: "error",
  DPANIC: "dpanic",
  dpanic: "dpanic",
  PANIC: "panic",
  panic: "panic",
  FATAL: "fatal",
  fatal: "fatal",
  NOTICE: "info",
  notice: "info",
  CRITICAL: "error",
  critical: "error"
});
function levelFromName(name) {
  return NAMES[name];
}
function isValidLevelName(name) {
  return NAMES[name] !== void 0;
}
function levelEnables(threshold, entry) {
  return LEVEL_SEVERITY[entry] >= LEVEL_SEVERITY[threshold];
}
function lowerLevel(a, b) {
  return LEVEL_SEVERITY[a] <= LEVEL_SEVERITY[b] ? a : b;
}

// packages/ops-logspec/.before/src/spec.ts
function specError(code, spec, reason) {
  return new LogspecError(code, `invalid logging specification '${spec}': ${reason}`);
}
function isNameChar(code) {
  return code >= 97 && code <= 122 || // a-z
  code >= 65 && code <= 90 || // A-Z
  code >= 48 && code <= 57 || // 0-9
  code === 95 || // _
  code === 35 || // #
  code === 58 || // :
  code === 45;
}
function isValidLoggerName(name) {
  if (name.length === 0) return false;
  let partLength = 0;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code === 46) {
      if (partLength === 0) return false;
      partLength = 0;
    } else if (isNameChar(code)) {
      partLength++;
    } else {
      return false;
    }
  }
  return partLength > 0;
}
function parseSpec(spec) {
  let defaultLevel = "info";
  const loggers = /* @__PURE__ */ new Map();
  for (const field of spec.split(":")) {
    const eq = field.indexOf("=");
    if (eq === -1) {
      if (field === "") {
        defaultLevel = "info";
        continue;
      }
      const level2 = levelFromName(field);
      if (level2 === void 0) throw specError("BAD_SEGMENT", spec, `bad segment '${field}'`);
      defaultLevel = level2;
      continue;
    }
    if (field.indexOf("=", eq + 1) !== -1) throw specError("BAD_SEGMENT", spec, `bad segment '${field}'`);
    const names = field.slice(0, eq);
    if (names === "") throw specError("NO_LOGGER", spec, `no logger specified in segment '${field}'`);
    const level = levelFromName(field.slice(eq + 1));
    if (level === void 0) throw specError("BAD_SEGMENT", spec, `bad segment '${field}'`);
    for (const name of names.split(",")) {
      const bare = name.endsWith(".") ? name.slice(0, -1) : name;
      if (!isValidLoggerName(bare)) throw specError("BAD_LOGGER_NAME", spec, `bad logger name '${name}'`);
      loggers.delete(name);
      loggers.set(name, level);
    }
  }
  return { defaultLevel, loggers };
}
function formatSpec(parsed) {
  const entries = [];
  for (const [name, level] of parsed.loggers) entries.push(`${name}=${level}`);
  entries.sort();
  entries.push(parsed.defaultLevel);
  return entries.join(":");
}
function normaliseSpec(spec) {
  return formatSpec(parseSpec(spec));
}
function lowestLevel(parsed) {
  let lowest = parsed.defaultLevel;
  for (const level of parsed.loggers.values()) lowest = lowerLevel(lowest, level);
  return lowest;
}
function resolveLevel(parsed, name) {
  let candidate = `${name}.`;
  for (; ; ) {
    const level = parsed.loggers.get(candidate);
    if (level !== void 0) return level;
    const dot = candidate.lastIndexOf(".");
    if (dot <= 0) return parsed.defaultLevel;
    candidate = candidate.slice(0, dot);
  }
}
var MAX_CACHED_NAMES = 65536;
function lookupKeys(name) {
  const keys = [];
  let candidate = `${name}.`;
  for (; ; ) {
    keys.push(candidate);
    const dot = candidate.lastIndexOf(".");
    if (dot <= 0) return keys;
    candidate = candidate.slice(0, dot);
  }
}
var LoggerLevels = class {
  #parsed = { defaultLevel: "info", loggers: /* @__PURE__ */ new Map() };
  #text = "info";
  #lowest = "info";
  #generation = 0;
  #cache = /* @__PURE__ */ new Map();
  constructor(spec = "") {
    this.activateSpec(spec);
  }
  /** Replaces the whole active spec; throws a LogspecError (changing nothing) when it is invalid. */
  activateSpec(spec) {
    const parsed = parseSpec(spec);
    this.#parsed = parsed;
    this.#text = formatSpec(parsed);
    this.#lowest = lowestLevel(parsed);
    this.#cache = /* @__PURE__ */ new Map();
    this.#generation++;
  }
  /** The active spec, normalised. */
  spec() {
    return this.#text;
  }
  defaultLevel() {
    return this.#parsed.defaultLevel;
  }
  /** The lowest level any logger has under the active spec. */
  lowestLevel() {
    return this.#lowest;
  }
  /** Increases by one with every successful activation. */
  generation() {
    return this.#generation;
  }
  /**
   * The effective level for a logger whose lookup keys (`lookupKeys(name)`) were computed
   * once, without touching the cache: for callers that cache per logger. Reusing the same
   * key strings lets their hashes be reused too.
   */
  resolveKeys(keys) {
    const { loggers, defaultLevel } = this.#parsed;
    if (loggers.size === 0) return defaultLevel;
    for (const key of keys) {
      const level = loggers.get(key);
      if (level !== void 0) return level;
    }
    return defaultLevel;
  }
  /** The effective level of logger `name`, cached until the next activation. */
  levelOf(name) {
    const cached = this.#cache.get(name);
    if (cached !== void 0) return cached;
    const level = resolveLevel(this.#parsed, name);
    if (this.#cache.size >= MAX_CACHED_NAMES) this.#cache.clear();
    this.#cache.set(name, level);
    return level;
  }
};

// packages/ops-logspec/.before/src/registry.ts
import { pino } from "pino";

// packages/ops-logspec/.before/src/text-format.ts
var LEVEL_LABELS = {
  10: "PAYLOAD",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL"
};
var FIXED_KEYS = /* @__PURE__ */ new Set(["level", "time", "name", "msg", "pid", "hostname"]);
function pad(value, width = 2) {
  return String(value).padStart(width, "0");
}
function formatTime(epochMs) {
  const d = new Date(epochMs);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)} UTC`;
}
function needsQuoting(text) {
  if (text === "") return true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 32 || code === 34 || code === 61 || code === 92 || code === 127) return true;
  }
  return false;
}
function formatValue(value) {
  if (typeof value === "string") return needsQuoting(value) ? JSON.stringify(value) : value;
  if (value !== null && typeof value === "object" && "message" in value && "stack" in value) {
    const { type, message } = value;
    return JSON.stringify(typeof type === "string" ? `${type}: ${String(message)}` : String(message));
  }
  if (value === null || typeof value !== "object") return String(value);
  return JSON.stringify(value);
}
function oneLine(text) {
  return /[\r\n]/.test(text) ? text.replace(/\r/g, "\\r").replace(/\n/g, "\\n") : text;
}
function formatTextLine(jsonLine) {
  let record;
  try {
    record = JSON.parse(jsonLine);
  } catch {
    return jsonLine.endsWith("\n") ? jsonLine : `${jsonLine}
`;
  }
  if (record === null || typeof record !== "object") return jsonLine;
  const time = typeof record["time"] === "number" ? formatTime(record["time"]) : String(record["time"] ?? "");
  const level = typeof record["level"] === "number" ? LEVEL_LABELS[record["level"]] ?? `LEVEL(${record["level"]})` : String(record["level"]);
  let line = `${time} [${typeof record["name"] === "string" ? record["name"] : ""}] ${level}`;
  if (record["msg"] !== void 0) line += ` ${oneLine(String(record["msg"]))}`;
  for (const key of Object.keys(record)) {
    if (FIXED_KEYS.has(key)) continue;
    line += ` ${key}=${formatValue(record[key])}`;
  }
  return `${line}
`;
}
function textDestination(out) {
  return {
    write(chunk) {
      out.write(formatTextLine(chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk));
    },
    flushSync() {
      out.flushSync?.();
    }
  };
}

// packages/ops-logspec/.before/src/registry.ts
var PINO_LABELS = ["trace", "debug", "info", "warn", "error", "fatal"];
var PINO_LABEL_OF = {
  payload: "trace",
  debug: "debug",
  info: "info",
  warn: "warn",
  error: "error",
  dpanic: "fatal",
  panic: "fatal",
  fatal: "fatal"
};
var FABRIC_LEVEL_OF = {
  trace: "payload",
  debug: "debug",
  info: "info",
  warn: "warn",
  error: "error",
  fatal: "fatal"
};
var FABRIC_NAME_OF_VALUE = { 10: "payload", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
var { levelValSym } = pino.symbols;
var PINO_VALUE = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
function parseFormat(value) {
  if (value === "json" || value === "text") return value;
  throw new LogspecError("INVALID_FORMAT", `unknown log format '${value}': expected 'json' or 'text'`);
}
function createLogging(options = {}) {
  const levels = new LoggerLevels(options.spec ?? "");
  const format = options.format === void 0 ? "text" : parseFormat(options.format);
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  let observer = options.observer;
  const root = pino(
    {
      level: "trace",
      // Text lines have no room for pid/hostname; JSON keeps pino's defaults.
      ...format === "text" ? { base: null } : {},
      hooks: {
        logMethod(args, method, level) {
          const current = observer;
          if (current !== void 0) {
            const name = FABRIC_NAME_OF_VALUE[level] ?? "info";
            current.checked(name);
            current.written(name);
          }
          return method.apply(this, args);
        }
      }
    },
    format === "text" ? textDestination(out) : out
  );
  const writing = Object.fromEntries(PINO_LABELS.map((label) => [label, root[label]]));
  const probe = root.child({});
  probe.level = "fatal";
  const silent = probe.trace;
  const counting = Object.fromEntries(
    PINO_LABELS.map((label) => {
      const fabricName = FABRIC_LEVEL_OF[label];
      return [label, () => observer?.checked(fabricName)];
    })
  );
  const entries = /* @__PURE__ */ new Map();
  const setMethods = (logger, label, countFrom) => {
    const threshold = PINO_VALUE[label];
    const target = logger;
    target[levelValSym] = threshold;
    for (const method of PINO_LABELS) {
      const value = PINO_VALUE[method];
      target[method] = value >= threshold ? writing[method] : countFrom !== void 0 && value >= countFrom ? counting[method] : silent;
    }
  };
  const apply = (entry, countFrom) => {
    const generation = levels.generation();
    if (entry.generation !== generation) {
      entry.level = levels.resolveKeys(entry.keys);
      entry.generation = generation;
    }
    const label = PINO_LABEL_OF[entry.level];
    const value = PINO_VALUE[label];
    if (value === entry.appliedValue && countFrom === entry.appliedCountFrom && entry.logger[levelValSym] === value) {
      return;
    }
    setMethods(entry.logger, label, countFrom === 0 ? void 0 : countFrom);
    entry.appliedValue = value;
    entry.appliedCountFrom = countFrom;
  };
  const countFromNow = () => observer === void 0 ? 0 : PINO_VALUE[PINO_LABEL_OF[levels.lowestLevel()]];
  const applyAll = () => {
    const countFrom = countFromNow();
    for (const entry of entries.values()) apply(entry, countFrom);
  };
  const getLogger = (name) => {
    const known = entries.get(name);
    if (known !== void 0) return known.logger;
    if (!isValidLoggerName(name)) throw new LogspecError("BAD_LOGGER_NAME", `bad logger name '${name}'`);
    const logger = root.child({ name });
    const pinoChild = logger.child;
    const entry = { name, keys: lookupKeys(name), logger, level: "info", generation: -1, appliedValue: 0, appliedCountFrom: 0 };
    let servesAsPrototype = false;
    logger.child = function followingChild(bindings, childOptions) {
      const child = pinoChild.call(this, bindings, childOptions);
      if (childOptions?.level === void 0 && Object.prototype.hasOwnProperty.call(child, levelValSym)) {
        delete child[levelValSym];
        for (const label of PINO_LABELS) delete child[label];
      }
      const untouched = logger[levelValSym] === entry.appliedValue;
      if (this === logger && !servesAsPrototype && untouched) {
        servesAsPrototype = true;
        setMethods(logger, PINO_LABEL_OF[entry.level], entry.appliedCountFrom === 0 ? void 0 : entry.appliedCountFrom);
      }
      return child;
    };
    setMethods(logger, "fatal", PINO_VALUE.trace);
    apply(entry, countFromNow());
    entries.set(name, entry);
    return logger;
  };
  const activateSpec = (spec) => {
    levels.activateSpec(spec);
    applyAll();
  };
  const setObserver = (next) => {
    observer = next;
    applyAll();
  };
  return {
    getLogger,
    activateSpec,
    spec: () => levels.spec(),
    levelOf: (name) => levels.levelOf(name),
    setObserver,
    format
  };
}

// packages/ops-logspec/.before/src/env.ts
var LOGGING_SPEC_ENV = "FABRIC_LOGGING_SPEC";
var LOGGING_FORMAT_ENV = "FABRIC_LOGGING_FORMAT";
function loggingSettingsFromEnv(env = process.env) {
  const spec = env[LOGGING_SPEC_ENV] ?? "";
  try {
    normaliseSpec(spec);
  } catch (error) {
    if (!isLogspecError(error)) throw error;
    throw new LogspecError(error.code, `${LOGGING_SPEC_ENV}: ${error.message}`, { cause: error });
  }
  const formatText = env[LOGGING_FORMAT_ENV] ?? "";
  let format;
  if (formatText === "" || formatText === "text" || formatText.includes("%{")) format = "text";
  else if (formatText === "json") format = "json";
  else {
    throw new LogspecError(
      "INVALID_FORMAT",
      `${LOGGING_FORMAT_ENV}: unknown log format '${formatText}': expected 'json', 'text' or a Fabric format template`
    );
  }
  return { spec, format };
}
function createLoggingFromEnv(env = process.env, options = {}) {
  const settings = loggingSettingsFromEnv(env);
  return createLogging({ ...options, spec: settings.spec, format: settings.format });
}

// packages/ops-logspec/.before/src/handler.ts
import { readBody, writeEmpty, writeJson } from "@fabric-ops/ops-http";

// packages/ops-logspec/.before/src/go-json.ts
var GO_MAX_DEPTH = 1e4;
var NEEDS_VALUE = "needs-value";
function invalidBody(message) {
  return new LogspecError("INVALID_BODY", message);
}
var SHORT_ESCAPES = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r" };
function quoteChar(c) {
  if (c === 39) return "'\\''";
  if (c === 34) return `'"'`;
  const short = SHORT_ESCAPES[c];
  if (short !== void 0) return `'${short}'`;
  if (c < 32 || c === 127) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  if (c >= 128 && c <= 160 || c === 173) return `'\\u${c.toString(16).padStart(4, "0")}'`;
  return `'${String.fromCharCode(c)}'`;
}
function syntaxError(c, context) {
  return invalidBody(`invalid character ${quoteChar(c)} ${context}`);
}
var isSpace = (c) => c === 32 || c === 9 || c === 10 || c === 13;
var isDigit = (c) => c >= 48 && c <= 57;
var isHex = (c) => isDigit(c) || c >= 97 && c <= 102 || c >= 65 && c <= 70;
function scanFirstValue(body) {
  const stack = [];
  let i = 0;
  let sawNonSpace = false;
  const unexpectedEof = () => invalidBody(sawNonSpace ? "unexpected EOF" : "EOF");
  const push = (c, state) => {
    stack.push(state);
    if (stack.length > GO_MAX_DEPTH) throw syntaxError(c, "exceeded max depth");
  };
  const scanString = (start) => {
    let j = start + 1;
    for (; ; ) {
      if (j >= body.length) throw unexpectedEof();
      const c = body[j];
      if (c === 34) return j + 1;
      if (c === 92) {
        j++;
        if (j >= body.length) throw unexpectedEof();
        const e = body[j];
        if (e === 117) {
          for (let k = 1; k <= 4; k++) {
            if (j + k >= body.length) throw unexpectedEof();
            const h = body[j + k];
            if (!isHex(h)) throw syntaxError(h, "in \\u hexadecimal character escape");
          }
          j += 5;
          continue;
        }
        if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
          j++;
          continue;
        }
        throw syntaxError(e, "in string escape code");
      }
      if (c < 32) throw syntaxError(c, "in string literal");
      j++;
    }
  };
  const scanNumber = (start) => {
    let j = start;
    const need = (context) => {
      if (j >= body.length) throw unexpectedEof();
      throw syntaxError(body[j], context);
    };
    if (body[j] === 45) {
      j++;
      if (j >= body.length || !isDigit(body[j])) need("in numeric literal");
    }
    if (body[j] === 48) j++;
    else while (j < body.length && isDigit(body[j])) j++;
    if (j < body.length && body[j] === 46) {
      j++;
      if (j >= body.length || !isDigit(body[j])) need("after decimal point in numeric literal");
      while (j < body.length && isDigit(body[j])) j++;
    }
    if (j < body.length && (body[j] === 101 || body[j] === 69)) {
      j++;
      if (j < body.length && (body[j] === 43 || body[j] === 45)) j++;
      if (j >= body.length || !isDigit(body[j])) need("in exponent of numeric literal");
      while (j < body.length && isDigit(body[j])) j++;
    }
    if (j >= body.length && stack.length > 0) throw unexpectedEof();
    return j;
  };
  const scanLiteral = (start, word) => {
    for (let k = 1; k < word.length; k++) {
      const j = start + k;
      if (j >= body.length) throw unexpectedEof();
      if (body[j] !== word.charCodeAt(k)) throw syntaxError(body[j], `in literal ${word} (expecting '${word[k]}')`);
    }
    return start + word.length;
  };
  const beginValue = (c) => {
    switch (c) {
      case 123:
        push(c, 0 /* ObjectKey */);
        i++;
        skipSpace();
        if (i >= body.length) throw unexpectedEof();
        if (body[i] === 125) {
          stack.pop();
          i++;
          return true;
        }
        if (body[i] !== 34) throw syntaxError(body[i], "looking for beginning of object key string");
        i = scanString(i);
        return false;
      case 91:
        push(c, 2 /* ArrayValue */);
        i++;
        skipSpace();
        if (i >= body.length) throw unexpectedEof();
        if (body[i] === 93) {
          stack.pop();
          i++;
          return true;
        }
        return NEEDS_VALUE;
      case 34:
        i = scanString(i);
        return true;
      case 116:
        i = scanLiteral(i, "true");
        return true;
      case 102:
        i = scanLiteral(i, "false");
        return true;
      case 110:
        i = scanLiteral(i, "null");
        return true;
      default:
        if (c === 45 || isDigit(c)) {
          i = scanNumber(i);
          return true;
        }
        throw syntaxError(c, "looking for beginning of value");
    }
  };
  function skipSpace() {
    while (i < body.length && isSpace(body[i])) i++;
  }
  skipSpace();
  if (i >= body.length) throw invalidBody("EOF");
  sawNonSpace = true;
  let complete = beginValue(body[i]);
  for (; ; ) {
    if (complete === NEEDS_VALUE) {
      skipSpace();
      if (i >= body.length) throw unexpectedEof();
      complete = beginValue(body[i]);
      continue;
    }
    if (complete && stack.length === 0) return i;
    skipSpace();
    if (i >= body.length) throw unexpectedEof();
    const c = body[i];
    const top = stack[stack.length - 1];
    if (!complete) {
      if (c !== 58) throw syntaxError(c, "after object key");
      stack[stack.length - 1] = 1 /* ObjectValue */;
      i++;
      skipSpace();
      if (i >= body.length) throw unexpectedEof();
      complete = beginValue(body[i]);
      continue;
    }
    if (top === 1 /* ObjectValue */) {
      if (c === 44) {
        stack[stack.length - 1] = 0 /* ObjectKey */;
        i++;
        skipSpace();
        if (i >= body.length) throw unexpectedEof();
        if (body[i] !== 34) throw syntaxError(body[i], "looking for beginning of object key string");
        i = scanString(i);
        complete = false;
        continue;
      }
      if (c === 125) {
        stack.pop();
        i++;
        complete = true;
        continue;
      }
      throw syntaxError(c, "after object key:value pair");
    }
    if (c === 44) {
      i++;
      skipSpace();
      if (i >= body.length) throw unexpectedEof();
      complete = beginValue(body[i]);
      continue;
    }
    if (c === 93) {
      stack.pop();
      i++;
      complete = true;
      continue;
    }
    throw syntaxError(c, "after array element");
  }
}
function kindOf(c) {
  if (c === 123) return "object";
  if (c === 91) return "array";
  if (c === 34) return "string";
  if (c === 116 || c === 102) return "bool";
  if (c === 110) return "null";
  return "number";
}
var LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
function decodeString(body, start, end) {
  const text = JSON.parse(Buffer.from(body.buffer, body.byteOffset + start, end - start).toString("utf8"));
  return text.replace(LONE_SURROGATE, "\uFFFD");
}
function matchesSpecKey(key) {
  if (key === "spec") return true;
  let folded = "";
  for (const ch of key) {
    if (ch === "\u017F") folded += "S";
    else if (ch >= "a" && ch <= "z") folded += ch.toUpperCase();
    else folded += ch;
    if (folded.length > 4) return false;
  }
  return folded === "SPEC";
}
function skipValue(body, start) {
  const c = body[start];
  if (c === 34) return skipString(body, start);
  if (c === 123 || c === 91) {
    let depth = 0;
    let j2 = start;
    for (; ; ) {
      const d = body[j2];
      if (d === 34) {
        j2 = skipString(body, j2);
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return j2 + 1;
      }
      j2++;
    }
  }
  let j = start;
  while (j < body.length) {
    const d = body[j];
    if (d === 44 || d === 125 || d === 93 || isSpace(d)) break;
    j++;
  }
  return j;
}
function skipString(body, start) {
  let j = start + 1;
  while (body[j] !== 34) j += body[j] === 92 ? 2 : 1;
  return j + 1;
}
function skipSpaceFrom(body, j) {
  while (j < body.length && isSpace(body[j])) j++;
  return j;
}
function decodeLogSpecBody(body) {
  const end = scanFirstValue(body);
  let j = skipSpaceFrom(body, 0);
  const kind = kindOf(body[j]);
  if (kind === "null") return "";
  if (kind !== "object") throw invalidBody(`json: cannot unmarshal ${kind} into Go value of type httpadmin.LogSpec`);
  let spec = "";
  let typeError;
  j = skipSpaceFrom(body, j + 1);
  while (j < end && body[j] !== 125) {
    const keyEnd = skipString(body, j);
    const key = decodeString(body, j, keyEnd);
    j = skipSpaceFrom(body, keyEnd) + 1;
    j = skipSpaceFrom(body, j);
    const valueEnd = skipValue(body, j);
    if (matchesSpecKey(key)) {
      const valueKind = kindOf(body[j]);
      if (valueKind === "string") spec = decodeString(body, j, valueEnd);
      else if (valueKind !== "null") {
        typeError ??= invalidBody(`json: cannot unmarshal ${valueKind} into Go struct field LogSpec.spec of type string`);
      }
    }
    j = skipSpaceFrom(body, valueEnd);
    if (body[j] === 44) j = skipSpaceFrom(body, j + 1);
  }
  if (typeError !== void 0) throw typeError;
  return spec;
}

// packages/ops-logspec/.before/src/handler.ts
function remoteAddressOf(req) {
  const { remoteAddress, remotePort } = req.socket;
  if (remoteAddress === void 0) return "";
  return remoteAddress.includes(":") ? `[${remoteAddress}]:${remotePort ?? ""}` : `${remoteAddress}:${remotePort ?? ""}`;
}
function writeError(res, message) {
  writeJson(res, 400, { error: message }, { trailingNewline: true });
}
function logspecHandler(logging, options = {}) {
  const audit = logging.getLogger(options.auditLoggerName ?? "operations");
  const limit = options.bodyLimit;
  const put = async (req, res) => {
    const body = await readBody(req, limit === void 0 ? {} : { limit });
    let spec;
    let next;
    try {
      spec = decodeLogSpecBody(body);
      next = normaliseSpec(spec);
    } catch (error) {
      if (!isLogspecError(error)) throw error;
      writeError(res, error.message);
      return;
    }
    const client = options.identify?.(req);
    const record = { oldSpec: logging.spec(), newSpec: next, remoteAddress: remoteAddressOf(req), ...client === void 0 ? {} : { client } };
    const loggedBefore = audit.isLevelEnabled("info");
    if (loggedBefore) audit.info(record, "logging spec changed");
    logging.activateSpec(spec);
    if (!loggedBefore) audit.info(record, "logging spec changed");
    writeEmpty(res, 204);
  };
  return (req, res) => {
    if (req.method === "GET") {
      if (audit.isLevelEnabled("debug")) audit.debug({ remoteAddress: remoteAddressOf(req) }, "logging spec read");
      writeJson(res, 200, { spec: logging.spec() }, { trailingNewline: true });
      return;
    }
    if (req.method !== "PUT") {
      writeError(res, `invalid request method: ${req.method ?? ""}`);
      return;
    }
    return put(req, res);
  };
}
export {
  LEVEL_SEVERITY,
  LOGGING_FORMAT_ENV,
  LOGGING_SPEC_ENV,
  LoggerLevels,
  LogspecError,
  createLogging,
  createLoggingFromEnv,
  decodeLogSpecBody,
  formatSpec,
  formatTextLine,
  isLogspecError,
  isValidLevelName,
  isValidLoggerName,
  levelEnables,
  levelFromName,
  loggingSettingsFromEnv,
  logspecHandler,
  lowestLevel,
  normaliseSpec,
  parseSpec,
  resolveLevel
};
