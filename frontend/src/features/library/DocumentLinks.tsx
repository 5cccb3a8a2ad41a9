import { useTranslation } from '../../i18n'
import type { LinkedDocument } from '../../lib/types'

type Props = {
  links: LinkedDocument[] | null | undefined
  /** Opens a linked document (an attachment, or the e-mail that carried this one). */
  onOpen: (documentId: number) => void
}

/** DocumentLinks lists an e-mail's attachments, or the e-mails a document is attached to, each opening it. */
export function DocumentLinks({ links, onOpen }: Props) {
  const { t } = useTranslation()
  const list = links ?? []
  if (list.length === 0) return null
  const groups: { label: string; items: LinkedDocument[] }[] = [
    { label: t('library.attachedTo'), items: list.filter((l) => !l.attachment) },
    { label: t('library.attachments'), items: list.filter((l) => l.attachment) },
  ]
  return (
    <section className="document-links" aria-label={t('library.linkedDocuments')}>
      {groups
        .filter((g) => g.items.length > 0)
        .map((g) => (
          <p key={g.label}>
            <span className="muted">{g.label}</span>{' '}
            {g.items.map((l) => (
              <button key={l.document_id} className="link" onClick={() => onOpen(l.document_id)}>
                {l.name}
              </button>
            ))}
          </p>
        ))}
    </section>
  )
}
