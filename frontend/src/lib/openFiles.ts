// Files Proofglass is asked to open from outside the window: its command line, a file manager's "Open with Proofglass", or a
// later launch that handed its files to this one. The backend keeps them until taken, so none is lost while the
// window starts, and each is taken once.
import { EventOpenFiles, on } from './bus'
import { hasBackend, OpenFilesService } from './generated/services'

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

/** onOpenFiles calls cb with the files Proofglass was asked to open from outside (command line, "Open with Proofglass", a
 * later launch): those waiting now, then each batch as it arrives. */
export function onOpenFiles(cb: (paths: string[]) => void): () => void {
  if (!hasBackend()) return () => {}
  return subscribeOpenFiles(
    async () => (await OpenFilesService.TakeOpenFiles()) ?? [],
    (f) => on(EventOpenFiles, f),
    cb,
  )
}
