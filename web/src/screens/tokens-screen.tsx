export function TokensScreen(_props: Record<string, unknown>) {
  return <h1 tabIndex={-1}>TokensScreen</h1>;
}
