import * as v from 'valibot';
import { ID_PATTERN, ID_RULE } from './id-pattern.ts';

export const IdSchema = v.pipe(v.string(), v.regex(ID_PATTERN, `Must be ${ID_RULE}`));
