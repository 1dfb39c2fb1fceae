/**
 * The few typed Kubernetes calls the operator makes outside its informers — reading, creating,
 * replacing and deleting a Secret or a ConfigMap (objects a kind delivers into), reading and writing one
 * custom object —
 * as plain-JSON requests (`kubeRequest`) with the signatures of `@kubernetes/client-node`'s
 * `CoreV1Api` and `CustomObjectsApi`.
 *
 * Why not those classes: importing them loads client-node's generated API and model classes
 * (every group and version), resident memory the operator would hold for five calls
 * (`npm run bench:modules`, docs/benchmarks.md). Contract: the same requests and answers as the
 * typed clients, except that answers are the API server's JSON as sent (timestamps are strings,
 * as in the informer caches) and a failure is a `KubeHttpError` carrying the HTTP status (read by
 * `kubernetesStatus`, like client-node's `ApiException`).
 */
import type { CoreV1Api, CustomObjectsApi, KubeConfig, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { kubeRequest } from './kube-request.ts';

/** The calls of `CoreV1Api` the operator makes. */
export type KubeCoreApi = Pick<
  CoreV1Api,
  | 'readNamespacedSecret'
  | 'createNamespacedSecret'
  | 'replaceNamespacedSecret'
  | 'deleteNamespacedSecret'
  | 'readNamespacedConfigMap'
  | 'createNamespacedConfigMap'
  | 'replaceNamespacedConfigMap'
  | 'deleteNamespacedConfigMap'
>;

/** The calls of `CustomObjectsApi` the operator makes. */
export type KubeCustomObjectsApi = Pick<
  CustomObjectsApi,
  'getNamespacedCustomObject' | 'createNamespacedCustomObject' | 'replaceNamespacedCustomObject'
>;

const enc = encodeURIComponent;

function secretPath(namespace: string, name?: string): string {
  const collection = `/api/v1/namespaces/${enc(namespace)}/secrets`;
  return name === undefined ? collection : `${collection}/${enc(name)}`;
}

function configMapPath(namespace: string, name?: string): string {
  const collection = `/api/v1/namespaces/${enc(namespace)}/configmaps`;
  return name === undefined ? collection : `${collection}/${enc(name)}`;
}

/** `KubeCoreApi` over plain-JSON requests (see the module comment). */
export function plainCoreApi(kubeConfig: KubeConfig): KubeCoreApi {
  return {
    readNamespacedSecret: async ({ namespace, name }) =>
      (await kubeRequest(kubeConfig, { method: 'GET', path: secretPath(namespace, name) })) as V1Secret,
    createNamespacedSecret: async ({ namespace, body }) =>
      (await kubeRequest(kubeConfig, { method: 'POST', path: secretPath(namespace), body })) as V1Secret,
    replaceNamespacedSecret: async ({ namespace, name, body }) =>
      (await kubeRequest(kubeConfig, { method: 'PUT', path: secretPath(namespace, name), body })) as V1Secret,
    deleteNamespacedSecret: async ({ namespace, name }) =>
      (await kubeRequest(kubeConfig, { method: 'DELETE', path: secretPath(namespace, name) })) as V1Secret,
    readNamespacedConfigMap: async ({ namespace, name }) =>
      (await kubeRequest(kubeConfig, { method: 'GET', path: configMapPath(namespace, name) })) as V1ConfigMap,
    // Kinds deliver into ConfigMaps too.
    createNamespacedConfigMap: async ({ namespace, body }) =>
      (await kubeRequest(kubeConfig, {
        method: 'POST',
        path: configMapPath(namespace),
        body,
      })) as V1ConfigMap,
    replaceNamespacedConfigMap: async ({ namespace, name, body }) =>
      (await kubeRequest(kubeConfig, {
        method: 'PUT',
        path: configMapPath(namespace, name),
        body,
      })) as V1ConfigMap,
    deleteNamespacedConfigMap: async ({ namespace, name }) =>
      (await kubeRequest(kubeConfig, {
        method: 'DELETE',
        path: configMapPath(namespace, name),
      })) as V1ConfigMap,
  };
}

interface CustomCollection {
  readonly group: string;
  readonly version: string;
  readonly namespace: string;
  readonly plural: string;
}

function customPath(at: CustomCollection, name?: string): string {
  const collection = `/apis/${enc(at.group)}/${enc(at.version)}/namespaces/${enc(at.namespace)}/${enc(at.plural)}`;
  return name === undefined ? collection : `${collection}/${enc(name)}`;
}

/** `KubeCustomObjectsApi` over plain-JSON requests (see the module comment). */
export function plainCustomObjectsApi(kubeConfig: KubeConfig): KubeCustomObjectsApi {
  return {
    getNamespacedCustomObject: async (at) =>
      kubeRequest(kubeConfig, { method: 'GET', path: customPath(at, at.name) }),
    createNamespacedCustomObject: async (at) =>
      kubeRequest(kubeConfig, { method: 'POST', path: customPath(at), body: at.body }),
    replaceNamespacedCustomObject: async (at) =>
      kubeRequest(kubeConfig, { method: 'PUT', path: customPath(at, at.name), body: at.body }),
  };
}
