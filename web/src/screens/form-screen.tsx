export function FormScreen(_props: Record<string, unknown>) {
  return <h1 tabIndex={-1}>FormScreen</h1>;
}
