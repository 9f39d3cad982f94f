// The options types each function alone takes (createTlsServer's, loadTlsCredentials',
// createCredentialReloader's, createAuthorizer's) are not exported by name: they are that
// function's parameter type (`Parameters<typeof createTlsServer>[0]`).
export { TlsAuthError, isTlsAuthError } from './internal/errors.ts';
export type { TlsAuthErrorCode } from './internal/errors.ts';
export type { TlsFileLabels, TlsFiles, TlsSettings } from './internal/settings.ts';
export { loadTlsCredentials } from './internal/credentials.ts';
export type { TlsCredentials } from './internal/credentials.ts';
export { createTlsServer } from './internal/server.ts';
export type { TlsServer } from './internal/server.ts';
export { createCredentialReloader } from './internal/reload.ts';
export type { CredentialReloader } from './internal/reload.ts';
export { createAuthorizer } from './internal/authorize.ts';
export { clientIdentityOf, clientSubjectOf } from './internal/identity.ts';
export type { ClientIdentity } from './internal/identity.ts';
export { validateAllowList } from './internal/allow-list.ts';
export type { RouteAllowList, SubjectRule } from './internal/allow-list.ts';
