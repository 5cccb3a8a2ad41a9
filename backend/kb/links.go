package kb

import (
	"context"
	"fmt"
)

// Link kinds.
const LinkAttachment = "attachment" // the child was attached to the parent, an e-mail message

// DocumentLink ties two documents: Name is what the parent calls the child (an attachment's file name).
type DocumentLink struct {
	ParentID int64  `json:"parent_id"`
	ChildID  int64  `json:"child_id"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// LinkDocuments records a link; linking the same two documents again keeps one link, with the new name.
func (k *Docs) LinkDocuments(ctx context.Context, l DocumentLink) error {
	if l.ParentID == l.ChildID {
		return fmt.Errorf("link document %d to itself", l.ParentID)
	}
	_, err := k.db.ExecContext(ctx, `INSERT INTO document_links(parent_id, child_id, kind, name) VALUES (?, ?, ?, ?)
		ON CONFLICT(parent_id, child_id) DO UPDATE SET kind = excluded.kind, name = excluded.name`,
		l.ParentID, l.ChildID, l.Kind, l.Name)
	if err != nil {
		return fmt.Errorf("link document %d to %d: %w", l.ChildID, l.ParentID, err)
	}
	return nil
}

// DocumentLinks returns the links of a document either way: those to its attachments and those to the messages
// it is attached to, parents' first, each by name.
func (k *Docs) DocumentLinks(ctx context.Context, id int64) ([]DocumentLink, error) {
	rows, err := k.db.QueryContext(ctx, `SELECT parent_id, child_id, kind, name FROM document_links
		WHERE parent_id = ?1 OR child_id = ?1 ORDER BY child_id = ?1 DESC, name, child_id`, id)
	if err != nil {
		return nil, fmt.Errorf("links of document %d: %w", id, err)
	}
	defer rows.Close()
	var out []DocumentLink
	for rows.Next() {
		var l DocumentLink
		if err := rows.Scan(&l.ParentID, &l.ChildID, &l.Kind, &l.Name); err != nil {
			return nil, fmt.Errorf("links of document %d: %w", id, err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
