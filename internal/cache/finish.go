package cache

import (
	"slices"
	"time"
)

// Finish ends the run: it writes the index of the run's pack, which makes
// its entries visible to later runs. When the run wrote, the directory is
// cleaned: packs whose every entry has a newer copy go (a warm run copies
// what it used into its own pack, so the pack it read from goes), then,
// while the directory is over its bound, the least recently used packs
// (never this run's, which holds everything the run used); with them, what
// crashed runs abandoned and the files of other formats left unused. Only
// plumb's own files are removed (files.go).
//
// Finish may be called more than once: the run's pack can grow after it,
// and the next Finish writes its index again.
func (s *Store) Finish() error {
	s.mu.Lock()
	own, index, wrote := s.own, slices.Clone(s.index), s.wrote
	packs := s.packs
	s.mu.Unlock()
	for _, p := range packs {
		p.close()
	}
	if own == nil {
		return nil
	}
	if own.packGone() {
		// Another run evicted the pack after an earlier Finish.
		s.forgetOwn(own)
		return nil
	}
	err := writeIndex(own, index)
	own.close()
	if err != nil || !wrote {
		return err
	}
	s.removeSuperseded()
	removeOtherFormats(s.top)
	removeStaleTemps(s.top, tempTagKind)
	return s.evict(own)
}

// removeSuperseded removes the earlier runs' packs none of whose entries
// is the most recent copy of a variant a lookup would try.
func (s *Store) removeSuperseded() {
	s.mu.Lock()
	defer s.mu.Unlock()
	live := map[*pack]bool{}
	for _, copies := range s.slots {
		var seen []Key
		for _, c := range copies {
			if len(seen) == maxVariants {
				break
			}
			if c.bad || slices.Contains(seen, c.variant) {
				continue
			}
			seen = append(seen, c.variant)
			live[c.pack] = true
		}
	}
	s.packs = slices.DeleteFunc(s.packs, func(p *pack) bool {
		return !live[p] && p.remove()
	})
}

// evict removes what crashed runs abandoned and, when the directory is
// over its bound, the least recently used packs until it is within 80% of
// it (room for the next runs' writes).
func (s *Store) evict(own *pack) error {
	l, err := listDir(s.root)
	if err != nil {
		return err
	}
	now := time.Now()
	for i, t := range l.temps {
		if now.Sub(l.tempMods[i]) > staleTemp {
			tempIndexKind.remove(s.root, t)
		}
	}
	var total int64
	var candidates []*pack
	for _, p := range l.packs {
		switch {
		case p.id == own.id:
		case !p.hasIndex:
			// A crashed run's pack, or a running one's: removed once stale.
			if now.Sub(p.packMod) > staleTemp && p.remove() {
				continue
			}
		case !p.hasPack:
			// An index whose pack another run removed while it wrote.
			if p.packGone() && p.removeIndex() {
				continue
			}
		default:
			candidates = append(candidates, p)
		}
		total += p.diskSize()
	}
	if total <= s.maxBytes {
		return nil
	}
	slices.SortFunc(candidates, func(a, b *pack) int { return a.mod.Compare(b.mod) })
	target := s.maxBytes / 10 * 8
	for _, p := range candidates {
		if total <= target {
			break
		}
		if p.remove() {
			total -= p.diskSize()
			s.count(func(st *Stats) { st.Evicted += int(p.indexSize) / indexEntrySize })
		}
	}
	return nil
}
