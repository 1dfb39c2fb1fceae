/**
 * Reasons of Project: only the generic ones (src/runtime/common-reasons.ts, src/managed/reasons.ts).
 * Declared once with their class; see src/runtime/reasons.ts.
 */
import { declareReasons } from '../../runtime/reasons.ts';

export const projectReasons = declareReasons('Project', {});
