/**
 * Reasons of Connection and ClusterConnection (both run the same sync).
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const connectionReasons = declareReasons('Connection', {
  InvalidCredentials: {
    class: 'terminal',
    conditions: ['Ready', 'Synced'],
    description:
      'The service rejected the credentials or the login; the message gives its answer (for Kubernetes, JWT and ' +
      'OIDC auth it names what did not match: namespace, name, audience, issuer, subject, expiry).',
    remedy:
      'Fix the Secret or the auth settings, or the identity’s auth method in the service (allowed namespaces, ' +
      'names, audience, issuer).',
  },
  LoginMethodNotFound: {
    class: 'waiting',
    conditions: ['Ready', 'Synced'],
    description:
      'The service has no such auth method attached to the identity (the login answered 404), e.g. an ' +
      'IdentityAuth applied together with the connection is not attached yet; with `identityRef` the ' +
      'IdentityAuth of that Identity getting Ready retries at once, with `identityId` every 15 s.',
    remedy:
      'Attach the method (an IdentityAuth of the identity, or in the service), or name another identity.',
  },
  TokenSourceNotAllowed: {
    class: 'terminal',
    conditions: ['Ready', 'Synced'],
    description:
      'The ServiceAccount token source is not allowed here: the operator’s projected token serves ' +
      'ClusterConnections and Connections in the operator’s own namespace only, and only from a file in the ' +
      'projected-token directory (--projected-token-dir), also once symlinks are resolved.',
    remedy:
      'Use serviceAccountRef with a ServiceAccount of this namespace, or a ClusterConnection; point ' +
      'projected.path at the token in the projected-token directory.',
  },
  InvalidTokenFile: {
    class: 'terminal',
    conditions: ['Ready', 'Synced'],
    description:
      'The projected token file is not a ServiceAccount token: not a regular file, larger than 16 KiB, or not ' +
      'a JWT (three base64url parts, a JSON header naming its alg, a JSON payload); it is never sent.',
    remedy: 'Point projected.path at the token the kubelet projects (the message names the rule broken).',
  },
  TokenAudienceMismatch: {
    class: 'terminal',
    conditions: ['Ready', 'Synced'],
    description:
      'The projected token’s aud claim does not include the audience the connection asks for ' +
      '(projected.audience, default coffer); it is never sent.',
    remedy:
      'Project the token for that audience (the chart’s serviceAccountToken.projected.audience), or set ' +
      'projected.audience to the audience the token carries and the identity’s auth expects.',
  },
  AudienceNotAllowed: {
    class: 'terminal',
    conditions: ['Ready', 'Synced'],
    description:
      'The ServiceAccount token would be accepted by the Kubernetes API server itself, so the operator never ' +
      'sends it to the service.',
    remedy:
      'Request (or project) the token for an audience of the service only, not the API server’s (its issuer).',
  },
  ServiceAccountTokenUnavailable: {
    class: 'waiting',
    conditions: ['Ready', 'Synced'],
    description:
      'No ServiceAccount token could be obtained: the ServiceAccount or the projected token file is missing, ' +
      'the token expired, or the operator lacks RBAC for TokenRequest/TokenReview; retried.',
    remedy: 'The message names the ServiceAccount or file and the API server’s answer.',
  },
});
