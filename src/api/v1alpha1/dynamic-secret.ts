/**
 * DynamicSecret: an object of the service, found again by name (its natural key, also the key for
 * adoption and crash recovery). Every field has a description: it is what `kubectl explain` and
 * the kind's page show.
 */
import { z } from 'zod';
import { managedFields } from './common.ts';
import { defineKind } from './kind.ts';
import { managedStatusFields } from './status.ts';

export const dynamicSecretSpec = z
  .object({
    ...managedFields('Delete'),
    name: z
      .string()
      .min(1)
      .max(64)
      .describe('Name of the DynamicSecret in the service, unique there (1–64 characters).'),
  })
  .describe('Desired DynamicSecret.');
export type DynamicSecretSpec = z.output<typeof dynamicSecretSpec>;

export const dynamicSecretStatus = z
  .object({ ...managedStatusFields })
  .describe('Observed state of the DynamicSecret.');
export type DynamicSecretStatus = z.output<typeof dynamicSecretStatus>;

export const dynamicSecretKind = defineKind({
  kind: 'DynamicSecret',
  plural: 'dynamicsecrets',
  shortNames: [],
  scope: 'Namespaced',
  description: 'A DynamicSecret of the service, kept as the spec says.',
  spec: dynamicSecretSpec,
  status: dynamicSecretStatus,
  defaultDeletionPolicy: 'Delete',
});
