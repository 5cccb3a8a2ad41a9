// Files Proofglass is asked to open from outside the window: its command line, a file manager's "Open with Proofglass", or a
// later launch that handed its files to this one. The backend keeps them until taken, so none is lost while the
// window starts, and each is taken once.

/** subscribeOpenFiles delivers the files waiting now, then each batch announced by onAnnounce, to cb. */
export function subscribeOpenFiles(
  take: () => Promise<string[]>,
  onAnnounce: (f: () => void) => () => void,
  cb: (paths: string[]) => void,
): () => void {
  const drain = () => {
    take().then(
      (paths) => {
        if (paths?.length) cb(paths)
      },
      () => {},
    )
  }
  const off = onAnnounce(drain)
  drain()
  return off
}
