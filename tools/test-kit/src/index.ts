export { runAppToExit, spawnApp } from './spawn-app.ts';
export type { RunningApp, SpawnAppOptions } from './spawn-app.ts';
export { send } from './http-client.ts';
export type { Reply, SendOptions } from './http-client.ts';
export { configDir, describeAppContract } from './app-contract.ts';
export type { AppContract } from './app-contract.ts';
export { createTestPki } from './pki.ts';
export type { IssueOptions, PemPair, TestCa, TestPki } from './pki.ts';
