import * as v from 'valibot';

type KeySchema = v.BaseSchema<string, string, v.BaseIssue<unknown>>;
type ValueSchema = v.BaseSchema<unknown, unknown, v.BaseIssue<unknown>>;

/**
 * valibot's `record`, except that it keeps every key. valibot's own silently
 * drops `__proto__`, `prototype` and `constructor` (so that assigning them
 * cannot reach a prototype), which turned a variant named `constructor` into
 * a missing weight with a misleading error. Here each key is validated like
 * any other (an id schema refuses `__proto__` with its usual message) and
 * written with defineProperty, which makes even `__proto__` a plain own
 * property, as JSON.parse does. Readers of such maps use Object.hasOwn.
 */
export function ownRecord<TKey extends KeySchema, TValue extends ValueSchema>(key: TKey, value: TValue): v.RecordSchema<TKey, TValue, undefined> {
  const base = v.record(key, value);
  return {
    ...base,
    '~run'(dataset, config) {
      const input = dataset.value;
      // Anything but an object gets valibot's own type issue.
      if (!input || typeof input !== 'object') return base['~run'](dataset, config);
      const output: Record<string, unknown> = {};
      const issues: v.BaseIssue<unknown>[] = [];
      let typed = true;
      for (const entryKey of Object.keys(input)) {
        const entryValue = (input as Record<string, unknown>)[entryKey];
        const keyResult = key['~run']({ value: entryKey }, config);
        const valueResult = value['~run']({ value: entryValue }, config);
        for (const [result, origin] of [
          [keyResult, 'key'],
          [valueResult, 'value'],
        ] as const) {
          for (const issue of result.issues ?? []) {
            const item: v.ObjectPathItem = { type: 'object', origin, input: input as Record<string, unknown>, key: entryKey, value: entryValue };
            (issue as { path?: unknown[] }).path = [item, ...(issue.path ?? [])];
            issues.push(issue);
          }
        }
        if (!keyResult.typed || !valueResult.typed) typed = false;
        else Object.defineProperty(output, keyResult.value, { value: valueResult.value, enumerable: true, writable: true, configurable: true });
        if (issues.length > 0 && config.abortEarly) break;
      }
      const out = dataset as unknown as { typed: boolean; value: unknown; issues?: v.BaseIssue<unknown>[] };
      out.typed = typed;
      out.value = output;
      if (issues.length > 0) out.issues = [...(out.issues ?? []), ...issues];
      return dataset as never;
    },
  };
}
