// uploads.js: files to send with the next message, chosen with the file
// picker or dropped on the composer. They are uploaded to the session
// (POST /sessions/{id}/assets, raw body) when the message is sent, and go
// into the input as content parts; images are previewed.

import { request, path } from "./api.js";
import { el } from "./messages.js";

/** partType is the content part type for a media type. */
export function partType(mediaType) {
  for (const kind of ["image", "audio", "video"]) {
    if (mediaType && mediaType.startsWith(kind + "/")) return kind;
  }
  return "file";
}

/** Uploads is the list of files waiting for the next message. */
export class Uploads {
  constructor(picker, dropZone, list) {
    this.picker = picker;
    this.list = list;
    this.files = [];
    picker.addEventListener("change", () => {
      this.add(picker.files);
      picker.value = "";
    });
    dropZone.addEventListener("dragover", (e) => {
      e.preventDefault();
      dropZone.classList.add("dragging");
    });
    dropZone.addEventListener("dragleave", () => dropZone.classList.remove("dragging"));
    dropZone.addEventListener("drop", (e) => {
      e.preventDefault();
      dropZone.classList.remove("dragging");
      if (e.dataTransfer && e.dataTransfer.files) this.add(e.dataTransfer.files);
    });
  }

  /** add queues files (a FileList or an array). */
  add(files) {
    for (const file of files) {
      this.files.push({ file, url: URL.createObjectURL(file) });
    }
    this.render();
  }

  render() {
    this.list.replaceChildren();
    this.files.forEach((f, i) => {
      const li = el("li", "upload");
      if (f.file.type.startsWith("image/")) {
        const img = el("img", "preview");
        img.src = f.url;
        img.alt = f.file.name;
        li.append(img);
      }
      li.append(el("span", "", f.file.name));
      const remove = el("button", "small", "Remove");
      remove.type = "button";
      remove.setAttribute("aria-label", "Remove " + f.file.name);
      remove.addEventListener("click", () => {
        this.files.splice(i, 1);
        this.render();
      });
      li.append(remove);
      this.list.append(li);
    });
  }

  /** pending reports files waiting to be sent. */
  pending() {
    return this.files.length > 0;
  }

  /**
   * uploadAll uploads the queued files to the session and returns
   * [{part, name, mediaType, url}] for the input and the message view.
   */
  async uploadAll(sessionId) {
    const out = [];
    for (const f of this.files) {
      const blob = f.file.type ? f.file : new Blob([f.file], { type: "application/octet-stream" });
      const asset = await request("POST", path(["sessions", sessionId, "assets"]), blob);
      out.push({
        part: { type: partType(asset.mediaType), assetId: asset.assetId },
        name: f.file.name,
        mediaType: asset.mediaType,
        url: f.url,
      });
    }
    this.files = [];
    this.render();
    return out;
  }
}
