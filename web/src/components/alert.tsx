// A failure as the screens show it: said at once to a screen reader (role alert), nothing when
// there is none.
export function Alert({ message }: { readonly message: string | null }) {
  return message ? (
    <p role="alert" class="alert">
      {message}
    </p>
  ) : null;
}
