// typedform.js: the form of a typed agent's input. When GET /agent shows
// an input schema (spec.inputSchema), the composer shows one field per
// property of the schema's top level — a select for an enum, a number
// field for integers and numbers, a checkbox for booleans, a text field
// for strings, and a JSON text area for anything else — and a message is
// the object the fields make, which the server checks against the schema.

/** TypedForm renders and reads the fields of an input schema. */
export class TypedForm {
  /** @param {HTMLElement} box the fieldset the fields go in */
  constructor(box) {
    this.box = box;
    this.fields = [];
  }

  /** active reports whether the agent is typed. */
  get active() {
    return this.fields.length > 0 || !this.box.hidden;
  }

  /** setSchema builds the fields of schema (an object schema). */
  setSchema(schema) {
    this.box.replaceChildren();
    this.fields = [];
    const legend = document.createElement("legend");
    legend.textContent = schema.title ? `Input: ${schema.title}` : "Input";
    this.box.append(legend);
    const required = new Set(schema.required || []);
    for (const [name, prop] of Object.entries(schema.properties || {})) {
      this.fields.push(this.addField(name, prop || {}, required.has(name)));
    }
    this.box.hidden = false;
  }

  addField(name, prop, required) {
    const id = "typed-" + name.replace(/[^A-Za-z0-9_-]/g, "_");
    const row = document.createElement("div");
    row.className = "typed-field";
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = name + (required ? " *" : "");
    if (prop.description) label.title = prop.description;
    let input;
    let kind = Array.isArray(prop.type) ? prop.type.find((t) => t !== "null") : prop.type;
    if (Array.isArray(prop.enum)) {
      input = document.createElement("select");
      if (!required) input.append(new Option("", ""));
      for (const v of prop.enum) input.append(new Option(String(v), JSON.stringify(v)));
      kind = "enum";
    } else if (kind === "integer" || kind === "number") {
      input = document.createElement("input");
      input.type = "number";
      if (kind === "integer") input.step = "1";
      if (prop.minimum !== undefined) input.min = String(prop.minimum);
      if (prop.maximum !== undefined) input.max = String(prop.maximum);
    } else if (kind === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
    } else if (kind === "string") {
      input = document.createElement("input");
      input.type = "text";
    } else {
      input = document.createElement("textarea");
      input.rows = 2;
      input.placeholder = "JSON";
      kind = "json";
    }
    input.id = id;
    if (prop.default !== undefined && kind !== "json") {
      if (kind === "boolean") input.checked = !!prop.default;
      else if (kind === "enum") input.value = JSON.stringify(prop.default);
      else input.value = String(prop.default);
    }
    row.append(label, input);
    this.box.append(row);
    return { name, kind, input, required };
  }

  /**
   * value is the object the fields make: empty optional fields are left
   * out. It throws when a field cannot be read (a number, JSON).
   */
  value() {
    const out = {};
    for (const f of this.fields) {
      const raw = f.kind === "boolean" ? f.input.checked : f.input.value;
      if (f.kind !== "boolean" && raw === "" && !f.required) continue;
      switch (f.kind) {
        case "boolean":
          out[f.name] = raw;
          break;
        case "integer":
        case "number":
          if (raw === "" || Number.isNaN(Number(raw))) throw new Error(`${f.name} must be a number`);
          out[f.name] = Number(raw);
          break;
        case "enum":
          out[f.name] = raw === "" ? null : JSON.parse(raw);
          break;
        case "json":
          try {
            out[f.name] = JSON.parse(raw);
          } catch {
            throw new Error(`${f.name} must be JSON`);
          }
          break;
        default:
          out[f.name] = raw;
      }
    }
    return out;
  }
}
