/**
 * Reasons of SecretBatch.
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const secretBatchReasons = declareReasons('SecretBatch', {
  FolderNotFound: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'The folder does not exist and createFolders is false; it may be created by someone else.',
  },
  SecretsNotFound: {
    class: 'waiting',
    conditions: ['Synced'],
    description: 'ObserveOnly/update: secrets the spec names do not exist in the folder yet.',
  },
  ApprovalRequired: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'An approval policy covers the folder; writes need an approval the operator cannot give.',
  },
  TooManyKeys: {
    class: 'terminal',
    conditions: ['Synced'],
    description: 'The batch holds more keys than one SecretBatch allows; split it.',
  },
  ExternalIdMismatch: {
    class: 'terminal',
    conditions: ['Synced'],
    description: "The coffer.dev/external-id annotation does not name this resource's folder.",
  },
});
