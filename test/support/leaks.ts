/**
 * The sweep of the hygiene tests: what the operator wrote where people look (events and coffer.dev
 * objects of a namespace), and which registered values appear in it. Results carry labels only,
 * so a failing assertion never prints a value.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { group, version, type KindDefinition } from '../../src/api/v1alpha1/index.ts';
import type { OperatorHarness } from './operator.ts';

/** Events and the objects of `kinds` (namespaced ones in the harness's namespace), as text. */
export async function visibleRecords(
  h: OperatorHarness,
  kinds: readonly Pick<KindDefinition, 'plural' | 'scope'>[],
): Promise<{ events: string; objects: string }> {
  await h.operator.flushEvents();
  const events = await h.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: h.namespace });
  const objects: unknown[] = [];
  for (const kind of kinds) {
    const at = { group, version, plural: kind.plural };
    const list = (
      kind.scope === 'Namespaced'
        ? await h.custom.listNamespacedCustomObject({ ...at, namespace: h.namespace })
        : await h.custom.listClusterCustomObject(at)
    ) as { items: unknown[] };
    objects.push(...list.items);
  }
  return { events: JSON.stringify(events.items), objects: JSON.stringify(objects) };
}

/**
 * `<label> in <place>` for every value of `values` (label → value) found, plain or base64, in the
 * texts of `places` (place → text).
 */
export function leaksOf(
  values: ReadonlyMap<string, string>,
  places: Readonly<Record<string, string>>,
): string[] {
  const forms = [...values].flatMap(([label, value]) => [
    { label, form: value },
    { label: `${label} (base64)`, form: Buffer.from(value).toString('base64') },
  ]);
  return forms.flatMap(({ label, form }) =>
    Object.entries(places).flatMap(([where, text]) => (text.includes(form) ? [`${label} in ${where}`] : [])),
  );
}
