// Labels people read (DESIGN.md 3.7): from a field or path name unless a definition sets one.
// `database_name` -> "Database name", `mapping_json` -> "Mapping JSON", `import-templates` ->
// "Import templates": words split on `_` and `-`, the first upper-cased, and the abbreviations
// below written in capitals.
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  id: 'ID',
  json: 'JSON',
  csv: 'CSV',
  url: 'URL',
  api: 'API',
};

export function labelOf(name: string): string {
  const words = name
    .split(/[_\-\s]+/)
    .filter(Boolean)
    .map((word) => ABBREVIATIONS[word.toLowerCase()] ?? word.toLowerCase());
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}
