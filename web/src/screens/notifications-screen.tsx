export function NotificationsScreen(_props: Record<string, unknown>) {
  return <h1 tabIndex={-1}>NotificationsScreen</h1>;
}
