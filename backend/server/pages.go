package server

import (
	"context"
	"errors"
	"maps"

	"proofglass/backend/kb"
	"proofglass/backend/pagefile"
)

// item is one retrievable unit with what its page file needs.
type item struct{ kb.PageItem }

// vragType is the item's type in VRAG's vocabulary, which tells a client how to open file_path: every file Proofglass
// returns is a JPEG, so "image" (a video clip is returned as its representative frame; unit_type says so).
func (it item) vragType() string { return "image" }

// unitType is the item's real kind: a PDF page, an image, or a video frame.
func (it item) unitType() string {
	switch it.UnitKind {
	case kb.UnitPage:
		return "page"
	case kb.UnitClip:
		return "video_frame"
	}
	return "image"
}

// loadItems reads the units with the given ids (those deleted meanwhile are simply absent).
func (s *Server) loadItems(ctx context.Context, ids []int64) (map[int64]item, error) {
	its, err := s.lib.KB.Search.PageItems(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]item, len(its))
	for id, it := range its {
		out[id] = item{it}
	}
	return out, nil
}

// fillItems is the stable order that completes a query's list when the signals found fewer than top_k units: the
// ready documents of the collections in scope, oldest first (by document id), each in page order.
func (s *Server) fillItems(ctx context.Context, collections []string, n int) ([]item, error) {
	its, err := s.lib.KB.Search.ReadyPageItems(ctx, collections, n)
	if err != nil {
		return nil, err
	}
	out := make([]item, len(its))
	for i, it := range its {
		out[i] = item{it}
	}
	return out, nil
}

// pageFiles makes sure every item has its page file and returns the path of each item that has one; failures are
// returned by unit id. With a corpus folder (serve --corpus-dir) the files are in it, named as VRAG names them; a
// unit whose name another document holds there is answered from the page cache instead.
func (s *Server) pageFiles(ctx context.Context, its []item) (map[int64]string, map[int64]error) {
	pis := make([]kb.PageItem, len(its))
	for i, it := range its {
		pis[i] = it.PageItem
	}
	if s.opt.Corpus == nil {
		return s.maker.Files(ctx, pis)
	}
	paths, fails := s.maker.CorpusFiles(ctx, s.opt.Corpus, pis)
	var taken []kb.PageItem
	for _, it := range pis {
		if errors.Is(fails[it.UnitID], pagefile.ErrNameTaken) {
			s.log.Warn("corpus folder: name taken; answered from the page cache", "err", fails[it.UnitID])
			delete(fails, it.UnitID)
			taken = append(taken, it)
		}
	}
	if len(taken) > 0 {
		ps, fs := s.maker.Files(ctx, taken)
		maps.Copy(paths, ps)
		maps.Copy(fails, fs)
	}
	if err := s.opt.Corpus.Save(); err != nil {
		s.log.Warn("corpus folder manifest", "err", err)
	}
	return paths, fails
}
