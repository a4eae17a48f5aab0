package neutral_test

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/media/mediatest"
	"github.com/harnest/harnest/runtime"
)

// eachAssetStore runs an asset test on every store.
func eachAssetStore(t *testing.T, s setup, fn func(t *testing.T, ts *testServer)) {
	eachStore(t, s, fn)
}

// upload posts an asset and returns the reply.
func (ts *testServer) upload(session, contentType string, body []byte) reply {
	ts.T.Helper()
	return ts.Do("POST", "/sessions/"+session+"/assets", contentType, body)
}

// mustUpload posts an asset that must be accepted and returns its ID.
func mustUpload(t *testing.T, ts *testServer, session, contentType string, body []byte) string {
	t.Helper()
	r := ts.upload(session, contentType, body)
	mustStatus(t, r, 201)
	id, _ := r.JSON(t)["assetId"].(string)
	if id == "" {
		t.Fatalf("no assetId: %s", r.Body)
	}
	return id
}

// withQuotas lowers the asset quotas for one test.
func withQuotas(t *testing.T, session, user int64) {
	oldS, oldU := runtime.SessionAssetQuota, runtime.UserAssetQuota
	runtime.SessionAssetQuota, runtime.UserAssetQuota = session, user
	t.Cleanup(func() { runtime.SessionAssetQuota, runtime.UserAssetQuota = oldS, oldU })
}

var assetIDPattern = regexp.MustCompile(`^asset_[A-Za-z0-9_-]{22,}$`)

func TestAssetUploadInspects(t *testing.T) {
	eachAssetStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		for _, c := range []struct {
			name, contentType string
			body              []byte
			want              string // the 201 body without assetId
		}{
			{"png", "image/png", mediatest.PNG(3, 2), `{"mediaType":"image/png","sizeBytes":%d,"width":3,"height":2}`},
			{"png with parameters", "IMAGE/PNG ; name=x.png", mediatest.PNG(1, 1), `{"mediaType":"image/png","sizeBytes":%d,"width":1,"height":1}`},
			{"jpeg", "image/jpeg", mediatest.JPEG(8, 6), `{"mediaType":"image/jpeg","sizeBytes":%d,"width":8,"height":6}`},
			{"gif", "image/gif", mediatest.GIF(5, 4, 3), `{"mediaType":"image/gif","sizeBytes":%d,"width":5,"height":4,"frameCount":3}`},
			{"webp", "image/webp", mediatest.WebP(64, 32), `{"mediaType":"image/webp","sizeBytes":%d,"width":64,"height":32}`},
			{"wav", "audio/wav", mediatest.WAV(16000, 2, 0.25), `{"mediaType":"audio/wav","sizeBytes":%d,"durationSeconds":0.25,"channels":2,"sampleRateHz":16000}`},
			{"mp3", "audio/mpeg", mediatest.MP3(100), `{"mediaType":"audio/mpeg","sizeBytes":%d,"durationSeconds":2.606,"channels":2,"sampleRateHz":44100}`},
			{"mp4", "video/mp4", mediatest.MP4(90000, 90000*12, 640, 360), `{"mediaType":"video/mp4","sizeBytes":%d,"width":640,"height":360,"durationSeconds":12}`},
			{"webm", "video/webm", mediatest.WebM(3.5, 320, 180), `{"mediaType":"video/webm","sizeBytes":%d,"width":320,"height":180,"durationSeconds":3.5}`},
			{"pdf", "application/pdf", mediatest.PDF(2), `{"mediaType":"application/pdf","sizeBytes":%d,"pageCount":2}`},
			{"opaque", "application/octet-stream", []byte("just some bytes"), `{"mediaType":"application/octet-stream","sizeBytes":%d}`},
		} {
			r := ts.upload("s", c.contentType, c.body)
			mustStatus(t, r, 201)
			id, _ := r.JSON(t)["assetId"].(string)
			if !assetIDPattern.MatchString(id) {
				t.Fatalf("%s: asset ID %q", c.name, id)
			}
			got := strings.Replace(string(r.Body), `"assetId":"`+id+`",`, "", 1)
			if want := fmt.Sprintf(c.want, len(c.body)); got != want {
				t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
			}
			g := ts.Get("/sessions/s/assets/" + id)
			mustStatus(t, g, 200)
			if !bytes.Equal(g.Body, c.body) {
				t.Errorf("%s: GET returned %d different bytes", c.name, len(g.Body))
			}
		}
	})
}

func TestAssetHeadAndGetHeaders(t *testing.T) {
	eachAssetStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		png := mediatest.PNG(2, 2)
		id := mustUpload(t, ts, "s", "image/png", png)
		for _, method := range []string{"HEAD", "GET"} {
			r := ts.Do(method, "/sessions/s/assets/"+id, "", nil)
			mustStatus(t, r, 200)
			for k, v := range map[string]string{
				"Content-Type": "image/png", "Content-Length": fmt.Sprint(len(png)), "Accept-Ranges": "bytes",
				"Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff",
			} {
				if got := r.Header.Get(k); got != v {
					t.Errorf("%s: %s = %q, want %q", method, k, got, v)
				}
			}
			if method == "HEAD" && len(r.Body) != 0 {
				t.Errorf("HEAD has a body")
			}
		}
		for _, method := range []string{"HEAD", "GET", "DELETE"} {
			r := ts.Do(method, "/sessions/s/assets/asset_nope", "", nil)
			if r.Status != 404 {
				t.Fatalf("%s of an unknown asset: %d", method, r.Status)
			}
			if method != "HEAD" {
				mustStatus(t, r, 404)
				if !strings.Contains(string(r.Body), "Asset not found") {
					t.Fatalf("404 body %s", r.Body)
				}
			}
		}
		mustStatus(t, ts.Get("/sessions/other/assets/"+id), 404)
	})
}

func TestAssetRanges(t *testing.T) {
	eachAssetStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		body := []byte("0123456789abcdefghij") // opaque, 20 bytes
		id := mustUpload(t, ts, "s", "application/octet-stream", body)
		get := func(method, rng string) reply {
			req, _ := http.NewRequest(method, ts.URL+"/sessions/s/assets/"+id, nil)
			req.Header.Set("Range", rng)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			return reply{Status: resp.StatusCode, Header: resp.Header, Body: b.Bytes()}
		}
		for rng, want := range map[string]struct{ body, contentRange string }{
			"bytes=2-5":     {"2345", "bytes 2-5/20"},
			"bytes=0-0":     {"0", "bytes 0-0/20"},
			"bytes=15-":     {"fghij", "bytes 15-19/20"},
			"bytes=19-19":   {"j", "bytes 19-19/20"},
			"bytes=10-999":  {"abcdefghij", "bytes 10-19/20"},
			"bytes= 3 - 4 ": {"34", "bytes 3-4/20"},
			"Bytes=0-19":    {string(body), "bytes 0-19/20"},
		} {
			r := get("GET", rng)
			mustStatus(t, r, 206)
			if string(r.Body) != want.body || r.Header.Get("Content-Range") != want.contentRange ||
				r.Header.Get("Content-Length") != fmt.Sprint(len(want.body)) || r.Header.Get("Content-Type") != "application/octet-stream" {
				t.Errorf("%s: %q, Content-Range %q, Content-Length %q", rng, r.Body, r.Header.Get("Content-Range"), r.Header.Get("Content-Length"))
			}
		}
		if r := get("HEAD", "bytes=2-5"); r.Status != 206 || r.Header.Get("Content-Range") != "bytes 2-5/20" || r.Header.Get("Content-Length") != "4" {
			t.Errorf("HEAD with a range: %d %v", r.Status, r.Header)
		}
		for _, rng := range []string{"bytes=-5", "bytes=0-1,3-4", "items=0-1", "bytes=20-", "bytes=25-30", "bytes=5-2", "bytes=x-y", "bytes=+1-2", "bytes=1", "bytes=", "0-5"} {
			r := get("GET", rng)
			mustStatus(t, r, 416)
			if r.Header.Get("Content-Range") != "bytes */20" || !strings.Contains(string(r.Body), "Invalid asset range") {
				t.Errorf("%s: Content-Range %q body %s", rng, r.Header.Get("Content-Range"), r.Body)
			}
		}
	})
}

func TestAssetUploadErrors(t *testing.T) {
	eachAssetStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		png := mediatest.PNG(4, 4)
		detail := func(r reply) string { d, _ := r.JSON(t)["detail"].(string); return d }
		for _, c := range []struct {
			name, session, contentType string
			body                       []byte
			status                     int
			detail                     string
		}{
			{"no content type", "s", "", png, 415, "Asset Content-Type is required"},
			{"blank content type", "s", "; x=y", png, 415, "Asset Content-Type is required"},
			{"no content type, no session", "nope", "", png, 415, "Asset Content-Type is required"},
			{"unknown session", "nope", "image/png", png, 404, "Session not found"},
			{"unsupported", "s", "text/plain", []byte("hello"), 415, "asset format is unsupported"},
			{"unsupported image", "s", "image/bmp", []byte("BM...."), 415, "asset format is unsupported"},
			{"mismatch", "s", "image/jpeg", png, 415, "asset type does not match declared media type"},
			{"known type as opaque", "s", "application/octet-stream", mediatest.PDF(1), 415, "asset type does not match declared media type"},
			{"opaque as image", "s", "image/png", []byte("not a png"), 415, "asset type does not match declared media type"},
			{"malformed png", "s", "image/png", png[:16], 415, "asset content is malformed"},
			{"malformed wav", "s", "audio/wav", []byte("RIFF\x04\x00\x00\x00WAVE"), 415, "asset content is malformed"},
			{"too many pixels", "s", "image/png", mediatest.PNGHeader(8000, 2001), 413, "The image has 8000×2001 = 16008000 pixels; the limit is 16000000"},
			{"too long", "s", "audio/wav", mediatest.WAV(100, 1, 301), 413, "The media lasts 301.0 s; the limit is 300 s"},
			{"too long video", "s", "video/mp4", mediatest.MP4(1, 301, 0, 0), 413, "The media lasts 301.0 s; the limit is 300 s"},
			{"over the request limit", "s", "application/octet-stream", make([]byte, 1<<20+1), 413, "Asset exceeds 1MiB"},
			{"empty", "s", "application/octet-stream", nil, 400, "The asset body is empty"},
		} {
			r := ts.upload(c.session, c.contentType, c.body)
			mustStatus(t, r, c.status)
			if got := detail(r); got != c.detail {
				t.Errorf("%s: detail %q, want %q", c.name, got, c.detail)
			}
		}
		// Exactly at the request limit is fine.
		mustUpload(t, ts, "s", "application/octet-stream", make([]byte, 1<<20))
	})
}

func TestAssetTenMiBLimit(t *testing.T) {
	big := func(c *configT) { c.Server.Limits.MaxRequestBytes = 64 << 20 }
	eachAssetStore(t, setup{Config: big}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		body := bytes.Repeat([]byte("0123456789abcdef"), 10<<20/16)
		r := ts.upload("s", "application/octet-stream", append(body, 'x'))
		mustStatus(t, r, 413)
		if !strings.Contains(string(r.Body), "10MiB") {
			t.Fatalf("413 body %s", r.Body)
		}
		id := mustUpload(t, ts, "s", "application/octet-stream", body)
		req, _ := http.NewRequest("GET", ts.URL+"/sessions/s/assets/"+id, nil)
		req.Header.Set("Range", "bytes=10485750-")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var tail bytes.Buffer
		_, _ = tail.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 206 || tail.String() != "6789abcdef" {
			t.Fatalf("tail: %d %q", resp.StatusCode, tail.String())
		}
		full := ts.Get("/sessions/s/assets/" + id) // streamed in several chunks
		if full.Status != 200 || !bytes.Equal(full.Body, body) {
			t.Fatalf("full read: %d, %d bytes", full.Status, len(full.Body))
		}
	})
}

func TestAssetDelete(t *testing.T) {
	eachAssetStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		id := mustUpload(t, ts, "s", "application/pdf", mediatest.PDF(1))
		r := ts.Do("DELETE", "/sessions/s/assets/"+id, "", nil)
		if r.Status != 204 || len(r.Body) != 0 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		mustStatus(t, ts.Get("/sessions/s/assets/"+id), 404)
		if r := ts.Do("HEAD", "/sessions/s/assets/"+id, "", nil); r.Status != 404 {
			t.Fatalf("HEAD after delete: %d", r.Status)
		}
		mustStatus(t, ts.Do("DELETE", "/sessions/s/assets/"+id, "", nil), 404)
	})
}

func TestAssetsAreIsolated(t *testing.T) {
	eachAssetStore(t, setup{Config: withTokens}, func(t *testing.T, ts *testServer) {
		alice, bob := ts.as("token-alice-0123456789"), ts.as("token-bob-0123456789")
		mustStatus(t, ts.upload("s", "image/png", mediatest.PNG(1, 1)), 401)
		mustStatus(t, alice.Post("/sessions", `{"id":"s"}`), 201)
		id := mustUpload(t, alice, "s", "image/png", mediatest.PNG(1, 1))
		mustStatus(t, ts.Get("/sessions/s/assets/"+id), 401)
		check := func() {
			t.Helper()
			mustStatus(t, bob.Get("/sessions/s/assets/"+id), 404)
			if r := bob.Do("HEAD", "/sessions/s/assets/"+id, "", nil); r.Status != 404 {
				t.Fatalf("bob HEAD: %d", r.Status)
			}
			mustStatus(t, bob.Do("DELETE", "/sessions/s/assets/"+id, "", nil), 404)
		}
		check()
		mustStatus(t, bob.upload("s", "image/png", mediatest.PNG(1, 1)), 404) // not bob's session
		mustStatus(t, bob.Post("/sessions", `{"id":"s"}`), 201)
		check() // bob's own session of the same name does not have it either
		mustUpload(t, bob, "s", "image/png", mediatest.PNG(1, 1))
		mustStatus(t, alice.Get("/sessions/s/assets/"+id), 200)
	})
}

func TestAssetQuotas(t *testing.T) {
	eachAssetStore(t, setup{}, func(t *testing.T, ts *testServer) {
		withQuotas(t, 2500, 4000)
		blob := bytes.Repeat([]byte{7}, 1000)
		for _, s := range []string{"a", "b"} {
			mustStatus(t, ts.Post("/sessions", `{"id":"`+s+`"}`), 201)
		}
		first := mustUpload(t, ts, "a", "application/octet-stream", blob)
		mustUpload(t, ts, "a", "application/octet-stream", blob)
		r := ts.upload("a", "application/octet-stream", blob)
		mustStatus(t, r, 413)
		if !strings.Contains(string(r.Body), "session's assets would exceed their 2500B quota") {
			t.Fatalf("session quota body %s", r.Body)
		}
		mustStatus(t, ts.Do("DELETE", "/sessions/a/assets/"+first, "", nil), 204)
		mustUpload(t, ts, "a", "application/octet-stream", blob) // the delete gave its bytes back
		mustUpload(t, ts, "b", "application/octet-stream", blob)
		mustUpload(t, ts, "b", "application/octet-stream", blob[:500])
		r = ts.upload("b", "application/octet-stream", blob[:501])
		mustStatus(t, r, 413)
		if !strings.Contains(string(r.Body), "Your assets would exceed their 4000B quota") {
			t.Fatalf("user quota body %s", r.Body)
		}
	})
}

func TestAssetsDeletedWithSession(t *testing.T) {
	eachAssetStore(t, setup{}, func(t *testing.T, ts *testServer) {
		withQuotas(t, 0, 1500) // no session quota
		blob := bytes.Repeat([]byte{1}, 1000)
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		mustStatus(t, ts.Post("/sessions", `{"id":"other"}`), 201)
		id := mustUpload(t, ts, "s", "application/octet-stream", blob)
		mustStatus(t, ts.upload("other", "application/octet-stream", blob), 413) // user quota
		mustStatus(t, ts.Do("DELETE", "/sessions/s", "", nil), 204)
		mustStatus(t, ts.Get("/sessions/s/assets/"+id), 404)
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		mustStatus(t, ts.Get("/sessions/s/assets/"+id), 404)
		mustStatus(t, ts.Do("DELETE", "/sessions/s/assets/"+id, "", nil), 404)
		// The deleted session's bytes went back to the user's quota.
		mustUpload(t, ts, "other", "application/octet-stream", blob)
	})
}
