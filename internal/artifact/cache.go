package artifact

import (
	"container/list"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/opencontainers/go-digest"
)

// tmpDirName holds downloads in progress inside the cache dir (same filesystem, so the
// final rename is atomic).
const tmpDirName = ".tmp"

// entry is one extracted artifact in the cache.
type entry struct {
	key  string
	dir  string
	size int64
	pins int
	elem *list.Element
}

// lru indexes entries by key, most recently used at the front. Guarded by Fetcher.mu.
type lru struct {
	entries map[string]*entry
	order   *list.List
	size    int64
}

func newLRU() *lru { return &lru{entries: map[string]*entry{}, order: list.New()} }

func (l *lru) get(key string) *entry {
	e := l.entries[key]
	if e != nil {
		l.order.MoveToFront(e.elem)
	}
	return e
}

func (l *lru) add(key, dir string, size int64) *entry {
	if old := l.entries[key]; old != nil {
		l.remove(old)
	}
	e := &entry{key: key, dir: dir, size: size}
	e.elem = l.order.PushFront(e)
	l.entries[key] = e
	l.size += size
	return e
}

func (l *lru) remove(e *entry) {
	l.order.Remove(e.elem)
	delete(l.entries, e.key)
	l.size -= e.size
}

// evict removes least recently used, unpinned entries other than keep until the cache fits
// its bound. Called with f.mu held.
func (f *Fetcher) evict(keep *entry) {
	for el := f.lru.order.Back(); el != nil && f.lru.size > f.opts.MaxCacheBytes; {
		e := el.Value.(*entry)
		el = el.Prev()
		if e == keep || e.pins > 0 {
			continue
		}
		f.lru.remove(e)
		_ = os.RemoveAll(e.dir)
	}
}

// loadCache drops interrupted downloads and indexes entries left by a previous process,
// oldest modification first so that recency roughly survives a restart.
func (f *Fetcher) loadCache() error {
	if err := os.MkdirAll(f.opts.CacheDir, 0o755); err != nil {
		return fmt.Errorf("creating artifact cache %s: %w", f.opts.CacheDir, err)
	}
	if err := os.RemoveAll(filepath.Join(f.opts.CacheDir, tmpDirName)); err != nil {
		return fmt.Errorf("cleaning artifact cache: %w", err)
	}
	type found struct {
		key, dir string
		size     int64
		mtime    time.Time
	}
	var all []found
	algs, err := os.ReadDir(f.opts.CacheDir)
	if err != nil {
		return fmt.Errorf("reading artifact cache: %w", err)
	}
	for _, alg := range algs {
		if !alg.IsDir() || !digest.Algorithm(alg.Name()).Available() {
			continue
		}
		encs, err := os.ReadDir(filepath.Join(f.opts.CacheDir, alg.Name()))
		if err != nil {
			return fmt.Errorf("reading artifact cache: %w", err)
		}
		for _, enc := range encs {
			key, err := cacheKey(alg.Name() + ":" + enc.Name())
			if err != nil || !enc.IsDir() {
				continue
			}
			dir := filepath.Join(f.opts.CacheDir, alg.Name(), enc.Name())
			info, err := enc.Info()
			if err != nil {
				continue
			}
			size, err := dirSize(dir)
			if err != nil {
				return fmt.Errorf("measuring cached artifact %s: %w", dir, err)
			}
			all = append(all, found{key, dir, size, info.ModTime()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mtime.Before(all[j].mtime) })
	for _, c := range all {
		f.lru.add(c.key, c.dir, c.size)
	}
	f.evict(nil)
	return nil
}

// dirSize is the total size of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	return total, err
}
