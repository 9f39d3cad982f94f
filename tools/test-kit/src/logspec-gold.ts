// Fabric's logging-spec behaviour as tables: fabric-lib-go's loggerlevels_test.go cases plus the
// extra cases verified against the real code (shared/reference/fabric-behaviour.md §3.2, §3.3).
// One deliberate difference from Fabric: `payload` reads back as `payload`, not `Level(-2)`.

export type GoldLevel = 'payload' | 'debug' | 'info' | 'warn' | 'error' | 'dpanic' | 'panic' | 'fatal';

export interface ActivateCase {
  readonly spec: string;
  readonly defaultLevel: GoldLevel;
  readonly levels: Readonly<Record<string, GoldLevel>>;
}

/** TestLoggerLevelsActivateSpec, plus the §3.3 lookup case. */
export const ACTIVATE_CASES: readonly ActivateCase[] = [
  { spec: 'DEBUG', defaultLevel: 'debug', levels: {} },
  { spec: 'INFO', defaultLevel: 'info', levels: {} },
  {
    spec: 'logger=info:DEBUG',
    defaultLevel: 'debug',
    levels: { logger: 'info', 'logger.a': 'info', 'logger.b': 'info', 'logger.a.b': 'info' },
  },
  {
    spec: 'logger=info:logger.=error:DEBUG',
    defaultLevel: 'debug',
    levels: { logger: 'error', 'logger.a': 'info', 'logger.b': 'info', 'logger.a.b': 'info' },
  },
  {
    spec: 'logger.a,logger.b=info:logger.c=WARN:DEBUG',
    defaultLevel: 'debug',
    levels: { 'logger.a': 'info', 'logger.b': 'info', 'logger.c': 'warn' },
  },
  {
    spec: 'a.b=info:a,z=error:c.b=info:c.=warn:debug',
    defaultLevel: 'debug',
    levels: {
      a: 'error',
      z: 'error',
      'a.b': 'info',
      'a.b.c': 'info',
      'a.b.c.d': 'info',
      'a.c': 'error',
      c: 'warn',
      'c.a': 'debug',
      'c.b': 'info',
      d: 'debug',
      'ab.c': 'debug',
      'c.b.a': 'info',
      'c.b.a.b': 'info',
    },
  },
  { spec: 'info:warn', defaultLevel: 'warn', levels: { a: 'warn', 'a.b': 'warn', b: 'warn', c: 'warn', d: 'warn' } },
  {
    spec: 'a.b=info:a,z=error:c.b=info:c.=warn:x.y.=fatal:debug',
    defaultLevel: 'debug',
    levels: {
      a: 'error',
      'a.b': 'info',
      'a.b.c': 'info',
      'a.bc': 'error',
      ab: 'debug',
      'z.q': 'error',
      c: 'warn',
      'c.a': 'debug',
      'c.b': 'info',
      x: 'debug',
      'x.y': 'fatal',
      'x.y.z': 'debug',
    },
  },
];

/** The state every error case starts from, and must still be in afterwards. */
export const ERROR_START_SPEC = 'fatal:a=warn';
export const ERROR_START_NORMALISED = 'a=warn:fatal';

/** TestLoggerLevelsActivateSpecErrors, TestNew, and the §3.3 error cases: spec → exact message. */
export const ERROR_CASES: readonly (readonly [spec: string, message: string])[] = (
  [
    ['=INFO:DEBUG', "no logger specified in segment '=INFO'"],
    ['=INFO=:DEBUG', "bad segment '=INFO='"],
    ['bogus', "bad segment 'bogus'"],
    ['a.b=info:a=broken:c.b=info:c.=warn:debug', "bad segment 'a=broken'"],
    ['a*=info:debug', "bad logger name 'a*'"],
    ['.a=info:debug', "bad logger name '.a'"],
    ['::=borken=::', "bad segment '=borken='"],
    ['Debug', "bad segment 'Debug'"],
    ['disabled', "bad segment 'disabled'"],
    ['DISABLED', "bad segment 'DISABLED'"],
    ['a=', "bad segment 'a='"],
    ['=', "no logger specified in segment '='"],
    ['a=info=debug', "bad segment 'a=info=debug'"],
    ['a=DeBuG', "bad segment 'a=DeBuG'"],
    ['a:b=info', "bad segment 'a'"],
    [' debug', "bad segment ' debug'"],
    ['debug ', "bad segment 'debug '"],
    ['a = info', "bad segment 'a = info'"],
    ['a,,b=info', "bad logger name ''"],
    [',a=info', "bad logger name ''"],
    ['a..b=info', "bad logger name 'a..b'"],
    ['a.b..=info', "bad logger name 'a.b..'"],
    ['a b=info', "bad logger name 'a b'"],
    ['a/b=info', "bad logger name 'a/b'"],
    ['é=info', "bad logger name 'é'"],
  ] as const
).map(([spec, reason]) => [spec, `invalid logging specification '${spec}': ${reason}`] as const);

/** TestSpec and the §3.3 round trips: input → normalised spec. */
export const SPEC_CASES: readonly (readonly [input: string, normalised: string])[] = [
  ['', 'info'],
  ['debug', 'debug'],
  ['a.=info:warning', 'a.=info:warn'],
  ['a-b=error', 'a-b=error:info'],
  ['a#b=error', 'a#b=error:info'],
  ['a_b=error', 'a_b=error:info'],
  ['debug:a=info:b=warn', 'a=info:b=warn:debug'],
  ['b=warn:a=error', 'a=error:b=warn:info'],
  ['DEBUG', 'debug'],
  ['WARNING', 'warn'],
  ['NOTICE', 'info'],
  ['CRITICAL', 'error'],
  ['PAYLOAD', 'payload'],
  ['dpanic', 'dpanic'],
  [':', 'info'],
  ['::', 'info'],
  ['debug:', 'info'],
  [':debug', 'debug'],
  ['debug:a=info:', 'a=info:info'],
  ['a.b.=info', 'a.b.=info:info'],
  ['1=info', '1=info:info'],
  ['Grpc=debug', 'Grpc=debug:info'],
  ['a=debug:a=info', 'a=info:info'],
  ['a=debug:a.=info', 'a.=info:a=debug:info'],
  ['a.b=debug:a.b.=info', 'a.b.=info:a.b=debug:info'],
  ['gossip.privdata,gossip.state=debug:info', 'gossip.privdata=debug:gossip.state=debug:info'],
  ['x=payload', 'x=payload:info'],
  ['a.b.c=notice:critical', 'a.b.c=info:error'],
  ['a.b=info:a,z=error:c.b=info:c.=warn:x.y.=fatal:debug', 'a.b=info:a=error:c.=warn:c.b=info:x.y.=fatal:z=error:debug'],
  ['info:warn', 'warn'],
  ['debug:info', 'info'],
  ['a=info:debug:warn', 'a=info:warn'],
  ['fatal', 'fatal'],
];

/** TestEnabled: spec → the lowest level any logger has. */
export const LOWEST_LEVEL_CASES: readonly (readonly [spec: string, lowest: GoldLevel])[] = [
  ['payload', 'payload'],
  ['debug', 'debug'],
  ['info', 'info'],
  ['warn', 'warn'],
  ['panic', 'panic'],
  ['fatal', 'fatal'],
  ['fatal:a=debug', 'debug'],
  ['a=fatal:b=warn', 'info'],
  ['a=warn', 'info'],
  ['a=debug', 'debug'],
];

/** TestNameToLevel / TestIsValidLevel. */
export const VALID_LEVEL_NAMES: readonly (readonly [name: string, level: GoldLevel])[] = [
  ['PAYLOAD', 'payload'],
  ['payload', 'payload'],
  ['DEBUG', 'debug'],
  ['debug', 'debug'],
  ['INFO', 'info'],
  ['info', 'info'],
  ['WARNING', 'warn'],
  ['WARN', 'warn'],
  ['warning', 'warn'],
  ['warn', 'warn'],
  ['ERROR', 'error'],
  ['error', 'error'],
  ['DPANIC', 'dpanic'],
  ['dpanic', 'dpanic'],
  ['PANIC', 'panic'],
  ['panic', 'panic'],
  ['FATAL', 'fatal'],
  ['fatal', 'fatal'],
  ['NOTICE', 'info'],
  ['notice', 'info'],
  ['CRITICAL', 'error'],
  ['critical', 'error'],
];
export const INVALID_LEVEL_NAMES: readonly string[] = ['george', 'bob', 'warnings', 'inf', 'DISABLED', 'disabled', 'Debug', 'DeBuG', '', ' info', 'constructor', '__proto__'];

/** Fabric's /logspec PUT decode table (§2): body → status and exact JSON body (each ends with a newline). */
export interface DecodeCase {
  readonly name: string;
  readonly body: string | Buffer;
  readonly status: 204 | 400;
  /** The error body for a 400; for a 204, the spec that GET reads back afterwards. */
  readonly error?: string;
  readonly specAfter?: string;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export const DECODE_CASES: readonly DecodeCase[] = [
  { name: 'empty body', body: '', status: 400, error: 'EOF' },
  { name: 'whitespace-only body', body: ' \n\t\r ', status: 400, error: 'EOF' },
  { name: 'not JSON', body: 'goo', status: 400, error: "invalid character 'g' looking for beginning of value" },
  { name: 'truncated object', body: '{"spec":"debug"', status: 400, error: 'unexpected EOF' },
  {
    name: 'trailing comma',
    body: '{"spec":"debug",}',
    status: 400,
    error: "invalid character '}' looking for beginning of object key string",
  },
  {
    name: 'a bare string',
    body: '"debug"',
    status: 400,
    error: 'json: cannot unmarshal string into Go value of type httpadmin.LogSpec',
  },
  { name: 'an array', body: '[]', status: 400, error: 'json: cannot unmarshal array into Go value of type httpadmin.LogSpec' },
  { name: 'a number', body: '123', status: 400, error: 'json: cannot unmarshal number into Go value of type httpadmin.LogSpec' },
  { name: 'a boolean', body: 'true', status: 400, error: 'json: cannot unmarshal bool into Go value of type httpadmin.LogSpec' },
  {
    name: 'spec is a number',
    body: '{"spec":5}',
    status: 400,
    error: 'json: cannot unmarshal number into Go struct field LogSpec.spec of type string',
  },
  {
    name: 'spec is a boolean',
    body: '{"spec":true}',
    status: 400,
    error: 'json: cannot unmarshal bool into Go struct field LogSpec.spec of type string',
  },
  {
    name: 'spec is an array',
    body: '{"spec":["debug"]}',
    status: 400,
    error: 'json: cannot unmarshal array into Go struct field LogSpec.spec of type string',
  },
  {
    name: 'spec is an object',
    body: '{"spec":{"a":1}}',
    status: 400,
    error: 'json: cannot unmarshal object into Go struct field LogSpec.spec of type string',
  },
  {
    name: 'UTF-8 BOM before the object',
    body: Buffer.concat([BOM, Buffer.from('{"spec":"debug"}')]),
    status: 400,
    error: "invalid character 'ï' looking for beginning of value",
  },
  { name: 'empty object resets to info', body: '{}', status: 204, specAfter: 'info' },
  { name: 'null resets to info', body: 'null', status: 204, specAfter: 'info' },
  { name: 'null spec resets to info', body: '{"spec":null}', status: 204, specAfter: 'info' },
  { name: 'empty spec resets to info', body: '{"spec":""}', status: 204, specAfter: 'info' },
  { name: 'unknown fields are ignored', body: '{"other":[1,{"x":null}],"spec":"warn","more":true}', status: 204, specAfter: 'warn' },
  { name: 'upper-case key', body: '{"SPEC":"error"}', status: 204, specAfter: 'error' },
  { name: 'mixed-case key', body: '{"Spec":"a=debug"}', status: 204, specAfter: 'a=debug:info' },
  { name: 'last duplicate wins', body: '{"spec":"debug","spec":"warn"}', status: 204, specAfter: 'warn' },
  { name: 'trailing junk after the value', body: '{"spec":"error"} junk', status: 204, specAfter: 'error' },
  { name: 'a second value after the first', body: '{"spec":"warn"}{"spec":"debug"}', status: 204, specAfter: 'warn' },
  { name: 'unicode escapes are decoded', body: '{"spec":"\\u0064ebug"}', status: 204, specAfter: 'debug' },
  {
    name: 'a spec Fabric rejects',
    body: '{"spec":"bogus"}',
    status: 400,
    error: "invalid logging specification 'bogus': bad segment 'bogus'",
  },
];
