// Syntax highlighting of ptl code blocks for highlight.js (version 10, bundled with mdbook
// 0.4, and version 11).
//
// The word lists below are checked against the lexer and the op table by
// crates/lang/tests/highlighting.rs: keep each one a plain array of quoted words.
(function () {
  'use strict';

  // Keywords.
  var KEYWORDS = ['fn', 'let', 'print', 'loop', 'scan', 'for', 'in', 'until', 'if', 'else'];

  // Literal words: the booleans and the float constants.
  var LITERALS = ['true', 'false', 'inf', 'nan'];

  // Dtypes.
  var TYPES = ['bool', 'i32', 'i64', 'f32', 'f64'];

  // Builtin functions, aliases included.
  var BUILTINS = [
    'exp', 'log', 'log1p', 'sqrt', 'tanh', 'abs', 'sigmoid', 'sin', 'cos', 'tan',
    'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'arcsinh', 'arccosh', 'arctanh',
    'exp2', 'expm1', 'log2', 'log10', 'cbrt', 'square', 'reciprocal', 'sign', 'floor',
    'ceil', 'round', 'trunc', 'erf', 'erfc', 'erfcx', 'gamma', 'gammaln', 'digamma', 'trigamma', 'i0', 'i1', 'i0e', 'i1e', 'j0', 'j1', 'erfinv', 'erfcinv', 'log1mexp',
    'softplus', 'isnan', 'isinf', 'isfinite', 'logical_not',
    'maximum', 'minimum', 'power', 'arctan2', 'mod', 'floor_divide', 'logaddexp', 'gammainc', 'gammaincc', 'gammaincinv', 'gammainccinv', 'betainc', 'betaincinv', 'polygamma', 'owens_t', 'kv', 'kve',
    'logical_and', 'logical_or', 'logical_xor',
    'sum', 'max', 'min', 'mean', 'prod', 'any', 'all', 'logsumexp', 'var', 'std',
    'softmax', 'log_softmax', 'transpose', 'broadcast', 'expand', 'squeeze', 'reshape',
    'where', 'clip', 'cast', 'take', 'scatter_add', 'scatter_set', 'set_slice', 'flatnonzero',
    'argmax', 'argmin', 'cumsum', 'cumprod', 'concat', 'stack', 'split',
    'zeros', 'ones', 'full', 'arange', 'eye', 'outer', 'diagonal', 'trace', 'tril', 'triu',
    'guard', 'diag', 'cholesky', 'solve_triangular', 'solve', 'inv', 'det', 'sort', 'argsort', 'slogdet', 'lu_factor', 'lu_permutation', 'eigh', 'psi'
  ];

  function ptl(hljs) {
    var COMMENT = hljs.COMMENT('//', '$');

    // `42`, `1.5`, `1e-3`, `2.5E+10`. `1.T` is the integer 1 followed by `.T`, and `0..n`
    // is a range from the integer 0.
    var NUMBER = {
      className: 'number',
      begin: /\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/,
      relevance: 0
    };

    var IDENT = /[A-Za-z_][A-Za-z0-9_]*/;

    // The dimensions of a tensor type, after its dtype: `f64[n, 3]`, `i64[?, 2]`.
    var DIMS = {
      begin: /\s*\[/,
      end: /\]/,
      contains: [
        COMMENT,
        { className: 'number', begin: /\b\d+\b/, relevance: 0 },
        { className: 'symbol', begin: IDENT, relevance: 0 },
        { className: 'operator', begin: /\?/, relevance: 0 }
      ]
    };

    return {
      name: 'ptl',
      case_insensitive: false,
      keywords: {
        keyword: KEYWORDS.join(' '),
        literal: LITERALS.join(' '),
        type: TYPES.join(' ')
      },
      contains: [
        COMMENT,
        {
          // `fn name(`: the name of a function definition.
          className: 'function',
          beginKeywords: 'fn',
          end: /\(/,
          excludeEnd: true,
          contains: [COMMENT, { className: 'title', begin: IDENT, relevance: 0 }]
        },
        {
          // A dtype followed by `[`: the dimensions of a tensor type.
          className: 'type',
          begin: new RegExp('\\b(?:' + TYPES.join('|') + ')\\b(?=\\s*\\[)'),
          starts: DIMS
        },
        {
          // Builtins are highlighted where they are called; as other names they are
          // ordinary variables.
          className: 'built_in',
          begin: new RegExp('\\b(?:' + BUILTINS.join('|') + ')(?=\\s*\\()'),
          relevance: 0
        },
        NUMBER,
        { className: 'operator', begin: /\.T\b/, relevance: 0 },
        {
          className: 'operator',
          begin: /\*\*|\.\.|->|<=|>=|==|!=|[-+*\/@<>=?]/,
          relevance: 0
        }
      ]
    };
  }

  // mdbook's book.js highlights every code block before this script runs, when no `ptl`
  // language exists yet; the ptl blocks are highlighted again here. Whichever comes first,
  // the blocks end up highlighted once the page is loaded.
  function highlightPtlBlocks() {
    var hljs = typeof window !== 'undefined' ? window.hljs : undefined;
    if (!hljs || typeof hljs.registerLanguage !== 'function') {
      return;
    }
    if (typeof hljs.getLanguage !== 'function' || !hljs.getLanguage('ptl')) {
      hljs.registerLanguage('ptl', ptl);
    }
    var highlight = hljs.highlightElement || hljs.highlightBlock;
    if (typeof highlight !== 'function' || typeof document === 'undefined') {
      return;
    }
    var blocks = document.querySelectorAll('code.language-ptl');
    for (var i = 0; i < blocks.length; i++) {
      var block = blocks[i];
      // Drop the markup of an earlier pass; highlight.js 11 skips marked blocks.
      block.textContent = block.textContent;
      if (block.dataset) {
        delete block.dataset.highlighted;
      }
      try {
        highlight.call(hljs, block);
      } catch (e) {
        // Leave the block as plain text.
      }
      block.classList.add('hljs');
    }
  }

  if (typeof module !== 'undefined' && module.exports) {
    module.exports = ptl;
  }

  if (typeof window !== 'undefined' && window.hljs &&
      typeof window.hljs.registerLanguage === 'function' &&
      !(window.hljs.getLanguage && window.hljs.getLanguage('ptl'))) {
    // Registered at once, so a highlighting pass that runs later already knows ptl.
    window.hljs.registerLanguage('ptl', ptl);
  }

  if (typeof document !== 'undefined') {
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', highlightPtlBlocks);
    } else {
      highlightPtlBlocks();
    }
  }
})();
