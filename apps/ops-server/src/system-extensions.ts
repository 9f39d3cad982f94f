// How the `./cluster` entry extends the system the main entry builds, without a public name for
// it: the hooks travel in the options under a registered symbol, so both entries find them
// whichever copy of this module each was bundled with.

/** The options key of the hooks (cluster/primary.ts → system.ts). */
export const SYSTEM_EXTENSIONS: unique symbol = Symbol.for('@fabric-ops/ops-server/system-extensions') as never;
