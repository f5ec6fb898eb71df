export function ListScreen(_props: Record<string, unknown>) {
  return <h1 tabIndex={-1}>ListScreen</h1>;
}
