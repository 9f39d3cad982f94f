// `@fabric-ops/ops-health/endpoint`: `vm.endpoint`'s grammar alone, pure (no sockets, no
// checker), so ops-config validates the setting with the parser the docker checker uses.
export { DOCKER_ENDPOINT_FORMS, readDockerEndpoint } from './internal/endpoint.ts';
export type { DockerEndpoint, DockerEndpointReading } from './internal/endpoint.ts';
