// How a field is named in a validation message (SPEC.md 7.2), wherever the message is made: the
// validator, the payload reader, a database constraint's refusal.

/**
 * Project decision: a top-level field reads naturally ("mapping json"), while a
 * detail-row key keeps its full dotted path ("groups.0.group_id") so clients can
 * map the message back to the row.
 */
export function attributeName(field: string, prefix = ''): string {
  return prefix === '' ? field.replaceAll('_', ' ') : prefix + field;
}
