/**
 * The IdentityAuth sample is Kubernetes auth; the CRD cases about issued credentials need token
 * auth. `tokenAuthVariant` turns a sample spec into token auth with rotated credentials.
 */
type Spec = Record<string, unknown>;

/** `spec` (a copy) as token auth with daily-rotated credentials, then changed by `edit`. */
export function tokenAuthVariant(spec: Spec, edit: (spec: Spec) => void): Spec {
  const copy = structuredClone(spec);
  delete copy['kubernetes'];
  Object.assign(copy, {
    method: 'token',
    credentials: { secretName: 'ci', rotateEvery: '24h', overlap: '10m' },
  });
  edit(copy);
  return copy;
}
