# SPDX-License-Identifier: MIT
# handbook.rb: an asciidoctor extension that turns lessons/*.adoc into pages a
# reader enjoys, for the lesson pages, the one-page handbook and the PDF.
#
#   asciidoctor -r ./docs/handbook/handbook.rb -a source-highlighter=rouge \
#       [-a handbook-reference=build/docs/reference] lessons/01-new-namespace.adoc
#
# Everything is derived from the lesson files when the docs are built: the
# number of a lesson is its file name's numeric prefix (as in the shell), the
# previous and next lessons are its neighbours in lessons/, so renumbering or
# adding a lesson needs no edit here. For each lesson (a page, or a chapter of
# the handbook) it:
#  - titles it "Lesson N: Title" and adds previous / contents / next links
#    (HTML only; a PDF has its table of contents and page order);
#  - highlights the [.run] command lines and [.solution] scripts as shell;
#  - folds what a reader should think about first: the [.answer] of a
#    prediction, the hints, the check, the worked solution and the wrong attempts of an exercise,
#    and which choice of a quiz is right (the checklist loses its ticks);
#  - puts beside each [.expect] pattern what the lesson's command really printed
#    in a reference run (docs/handbook/capture-reference.sh, which records
#    pidns-tutor --auto all), naming the kernel and the date of that run;
#  - draws, where the reference run had a namespace below the lab's, the lab's
#    namespace tree as a picture (ns_picture.rb) beside its text, at the step
#    where it had the most namespaces.
# The lesson files themselves stay in the subset the shell reads.

require 'asciidoctor'
require 'asciidoctor/extensions'
require 'cgi'
require 'fileutils'
require 'tmpdir'
require_relative 'ns_picture'

module PidnsHandbook
  # The shell's rule for a lesson file (shell/lesson.c): digits, '-', a name, .adoc.
  LESSON_FILE = /\A(\d+)-(.+)\.adoc\z/

  Lesson = Struct.new(:number, :id, :path, :title, :summary, :minutes, :kernel)

  def self.lesson_file?(path)
    m = LESSON_FILE.match(File.basename(path.to_s)) and m[2].length >= 1
  end

  def self.read_lesson(path)
    m = LESSON_FILE.match(File.basename(path))
    lesson = Lesson.new(m[1].to_i, File.basename(path, '.adoc'), path)
    File.foreach(path) do |line|
      line = line.chomp
      next if line.start_with?('//') && lesson.title.nil?
      if lesson.title.nil?
        lesson.title = line.sub(/\A=\s+/, '') if line.start_with?('= ')
      elsif (a = /\A:(summary|minutes|kernel):\s*(.*)\z/.match(line))
        lesson[a[1].to_sym] = a[2]
      elsif !line.start_with?(':')
        break
      end
    end
    lesson
  end

  # Every lesson of the directory, in the shell's order (number, then name).
  def self.lessons_in(dir)
    @lessons ||= {}
    @lessons[dir] ||= Dir.children(dir).select { |f| lesson_file?(f) }
                         .map { |f| read_lesson(File.join(dir, f)) }
                         .sort_by { |l| [l.number, l.id] }
  end

  # The reference run: what each command of each lesson printed.
  class Reference
    # A line that is not a command's output: the tutor's own text after it.
    STOP = /\A(?:\z|# |check: |Lesson \d+, step |Predict: |Quiz: |Exercise: |
               stopped\ (?:job|process)\ |\ \ Cleaned\ up:\ |lesson\ \d+\ \(|--auto: |host\ unchanged|
               tree\ after\ lesson\ )/x.freeze
    # The lab's tree after a step (PIDNS_TUTOR_TREES, shell/tutor/tutor_picture.c).
    TREE = /\Atree after lesson \d+, step (\d+):\z/.freeze
    # The tutor's notes about an output (one a line, the capture uses wide COLUMNS).
    NOTE = /\A  (?:\(|\S+ has (?:one PID|\d+ PIDs)|\d+ is the child's PID|pid:\[\d+\] is )/.freeze

    # The mark of a line a background job printed after its own step.
    LATER = '[job] '

    attr_reader :meta

    def initialize(dir)
      @meta = {}
      @runs = {}
      @trees = {}
      @too_new = []
      meta_file = File.join(dir, 'meta')
      File.foreach(meta_file) { |l| k, v = l.chomp.split('=', 2); @meta[k] = v } if File.file?(meta_file)
      transcript = File.join(dir, 'transcript.txt')
      parse(File.readlines(transcript, chomp: true)) if File.file?(transcript)
    end

    def passed?(lesson_id)
      @runs.key?(lesson_id)
    end

    # Was the lesson skipped whole, its :kernel: newer than the run's?
    def too_new?(lesson_id)
      @too_new.include?(lesson_id)
    end

    # The commands of a lesson as [command, output lines], in the order run.
    def runs(lesson_id)
      @runs[lesson_id] || []
    end

    # The lab's tree at the step where it had the most namespaces (the first
    # such step): [step number, the `tree` lines, the parsed tree], or nil.
    def picture(lesson_id)
      best = nil
      (@trees[lesson_id] || []).each do |step, lines|
        root = NsPicture.parse(lines) or next
        n = NsPicture.count(root)
        best = [step, lines, root, n] if n >= 2 && (best.nil? || n > best[3])
      end
      best && best[0, 3]
    end

    def label
      "Linux #{@meta['kernel']} (#{@meta['machine']}), #{@meta['date']}"
    end

    private

    def parse(lines)
      # What a background job printed later, while another command ran
      # (PIDNS_TUTOR_MARK_JOBS, shell/render/tee.h): not that command's output.
      lines = lines.reject { |l| l.start_with?(LATER) }
      runs = []
      trees = []
      i = 0
      while i < lines.size
        line = lines[i]
        if (t = TREE.match(line))
          tree = []
          i += 1
          while i < lines.size && lines[i].start_with?('  | ')
            tree << lines[i][4..]
            i += 1
          end
          trees << [t[1].to_i, tree]
          next
        elsif line.start_with?('# ')
          command = [line[2..]]
          i += 1
          while i < lines.size && lines[i].start_with?('> ')
            command << lines[i][2..]
            i += 1
          end
          output = []
          while i < lines.size && !STOP.match?(lines[i])
            output << lines[i]
            i += 1
          end
          output.pop while !output.empty? && NOTE.match?(output.last)
          runs << [command.join("\n"), output]
          next
        elsif (m = /\Alesson \d+ \(([^()]+)\): skipped, kernel: every step /.match(line))
          @too_new << m[1]
          runs = []
          trees = []
        elsif (m = /\Alesson \d+ \(([^()]+)\): (\S+)(?: \(\d+ steps? skipped\b.*\))?\z/.match(line))
          @runs[m[1]] = runs if m[2] == 'passed'
          @trees[m[1]] = trees if m[2] == 'passed'
          runs = []
          trees = []
        end
        i += 1
      end
    end
  end

  # The shell's comparison of an output with an [.expect] pattern
  # (docs/lesson-format.adoc): blanks squeezed, {N} a number, {*} any text,
  # a line "..." any lines; .unordered lines in any order.
  module Match
    def self.normalize(line)
      line.strip.split(/[ \t]+/).join(' ')
    end

    def self.line_regexp(pattern)
      parts = normalize(pattern).split(/(\{N\}|\{\*\})/).map do |p|
        case p
        when '{N}' then '\d+'
        when '{*}' then '.*'
        else Regexp.escape(p)
        end
      end
      Regexp.new("\\A#{parts.join}\\z")
    end

    def self.ordered(pats, outs)
      return outs.empty? if pats.empty?
      if pats[0] == '...'
        (0..outs.size).any? { |k| ordered(pats[1..], outs[k..]) }
      else
        !outs.empty? && line_regexp(pats[0]).match?(normalize(outs[0])) && ordered(pats[1..], outs[1..])
      end
    end

    def self.unordered(pats, outs)
      left = outs.map { |o| normalize(o) }
      pats.reject { |p| p == '...' }.each do |p|
        re = line_regexp(p)
        k = left.index { |o| re.match?(o) } or return false
        left.delete_at(k)
      end
      left.empty? || pats.include?('...')
    end

    def self.matches?(pattern_lines, output_lines, unordered)
      outs = output_lines.dup
      outs.pop while !outs.empty? && outs.last.strip.empty?
      pats = pattern_lines.dup
      pats.pop while !pats.empty? && pats.last.strip.empty?
      unordered ? unordered(pats, outs) : ordered(pats, outs)
    end
  end

  # The extension object is frozen once registered: the work of one document
  # is done by a Decorator of its own.
  class Treeprocessor < Asciidoctor::Extensions::Treeprocessor
    def process(doc)
      Decorator.new.run(doc)
    end
  end

  class Decorator
    def run(doc)
      @html = doc.basebackend?('html') && doc.backend != 'pdf' # asciidoctor-pdf's base is html too
      dir = doc.attr('handbook-reference')
      @reference = Reference.new(dir) if dir && !dir.empty?
      if lesson_page?(doc)
        lesson = lesson_for(doc.attr('docfile'))
        decorate(doc, doc, lesson, :page)
      else
        doc.find_by(context: :section) { |s| s.level == 1 }.each do |chapter|
          file = chapter.source_location&.file
          decorate(doc, chapter, lesson_for(file), :chapter) if file && PidnsHandbook.lesson_file?(file)
        end
      end
      nil
    end

    private

    def lesson_page?(doc)
      doc.doctype != 'book' && PidnsHandbook.lesson_file?(doc.attr('docfile'))
    end

    def lesson_for(path)
      PidnsHandbook.lessons_in(File.dirname(File.expand_path(path)))
                   .find { |l| File.basename(l.path) == File.basename(path) }
    end

    def decorate(doc, node, lesson, kind)
      return unless lesson
      title = "Lesson #{lesson.number}: #{lesson.title}"
      if kind == :page
        doc.title = title
        doc.set_attr('doctitle', title)
      else
        node.title = title
        @chapters ||= {}
        @chapters[lesson.id] = node
      end
      body = kind == :page ? doc : node
      insert_about(doc, body, lesson)
      note_step_kernels(body)
      fold_blocks(body)
      add_reference(body, lesson)
      add_picture(doc, body, lesson)
      highlight_commands(body)
      if @html
        insert_nav(doc, body, lesson, kind)
      else
        label_blocks(body)
      end
    end

    # HTML pages label the marked blocks with CSS (docs/include/docinfo.html);
    # elsewhere (the PDF) they get the same labels as titles.
    LABELS = [
      [:listing, 'run', 'Run in the lab'],
      [:literal, 'expect', 'Expected output ({N} is any number, ... any lines)'],
      [:example, 'predict', 'Predict, then run'],
      [:example, 'exercise', 'Exercise: your turn'],
      [:example, 'quiz', 'Quiz']
    ].freeze

    def label_blocks(body)
      LABELS.each do |context, role, label|
        body.find_by(context: context) { |b| b.has_role?(role) && !b.title? }.each do |b|
          b.title = role == 'expect' && b.has_role?('unordered') ? 'Expected output, lines in any order' : label
        end
      end
    end

    def lessons(lesson)
      PidnsHandbook.lessons_in(File.dirname(lesson.path))
    end

    # Previous, contents, next: files beside the page, or chapters of the handbook.
    def insert_nav(doc, body, lesson, kind)
      all = lessons(lesson)
      i = all.index(lesson)
      prev_l = i.positive? ? all[i - 1] : nil
      next_l = all[i + 1]
      link = lambda do |l|
        kind == :page ? "#{l.id}.html" : "##{chapter_id(doc, l)}"
      end
      contents = kind == :page ? doc.attr('handbook-contents', '../handbook.html') : '#toc'
      parts = []
      parts << (prev_l ? %(<a class="prev" rel="prev" href="#{link.call(prev_l)}">&#8592; Lesson #{prev_l.number}: #{inline(body, prev_l.title)}</a>) : '<span class="prev"></span>')
      parts << %(<a class="contents" href="#{contents}">Contents</a>)
      parts << (next_l ? %(<a class="next" rel="next" href="#{link.call(next_l)}">Lesson #{next_l.number}: #{inline(body, next_l.title)} &#8594;</a>) : '<span class="next"></span>')
      html = %(<nav class="lesson-nav">#{parts.join}</nav>)
      body.blocks.unshift(Asciidoctor::Block.new(body, :pass, source: html, subs: []))
      body.blocks.push(Asciidoctor::Block.new(body, :pass, source: html.sub('lesson-nav', 'lesson-nav bottom'), subs: []))
    end

    # A chapter's id: the handbook's own (derived from the title when parsed).
    def chapter_id(doc, lesson)
      @chapters ||= {}
      ch = @chapters[lesson.id] || doc.find_by(context: :section) do |s|
        s.level == 1 && s.source_location && File.basename(s.source_location.file) == File.basename(lesson.path)
      end.first
      ch ? ch.id : ''
    end

    def inline(node, text)
      node.apply_title_subs(text)
    end

    # Summary, time, kernel, and where the reference output comes from.
    # A step marked [kernel=X.Y] says, under its title, the kernel it needs
    # (the shell skips it on an older one).
    def note_step_kernels(body)
      body.find_by(context: :section) { |s| s.attr?('kernel') }.each do |step|
        note = Asciidoctor::Block.new(step, :paragraph,
                                      source: "_This step needs Linux #{step.attr('kernel')} or later; " \
                                              'on an older kernel the tutorial skips it._',
                                      subs: :normal)
        note.add_role('step-kernel')
        step.blocks.unshift(note)
      end
    end

    def insert_about(_doc, body, lesson)
      facts = ["Lesson #{lesson.number} of #{lessons(lesson).size}"]
      facts << "about #{lesson.minutes} minutes" if lesson.minutes
      facts << "needs Linux #{lesson.kernel} or later" if lesson.kernel
      text = "_#{facts.join(' · ')}._"
      text = "#{lesson.summary}. #{text}" if lesson.summary && !lesson.summary.empty?
      about = Asciidoctor::Block.new(body, :paragraph, source: text, subs: :normal, attributes: { 'role' => 'lesson-about' })
      about.add_role('lesson-about')
      blocks = [about]
      if @reference
        note = if @reference.passed?(lesson.id)
                 "Beside each expected pattern, _reference run_ shows what the command printed when the " \
                 "handbook was built: `pidns-tutor --auto` ran this lesson on #{@reference.label}. " \
                 'Your numbers will differ; the pattern says what must not.'
               elsif @reference.too_new?(lesson.id)
                 "No reference run of this lesson is shown: every step needs a newer kernel than " \
                 "#{@reference.label}, where the handbook was built."
               else
                 "No reference run of this lesson is shown: it did not run when the handbook was built " \
                 "(#{@reference.meta['status'] || 'no capture'})."
               end
        ref = Asciidoctor::Block.new(body, :paragraph, source: note, subs: :normal)
        ref.add_role('reference-about')
        blocks << ref
      end
      blocks.reverse_each { |b| body.blocks.unshift(b) }
    end

    def fold(parent, title, role, children)
      details = Asciidoctor::Block.new(parent, :example, content_model: :compound)
      details.set_option('collapsible')
      details.title = title
      details.add_role(role)
      children.each { |c| c.parent = details; details << c }
      details
    end

    # Puts a new block in the place of one; the block given builds it (and may move the
    # old block into it, so its parent is read first).
    def replace(block)
      siblings = block.parent.blocks
      i = siblings.index(block)
      siblings[i] = yield(block.parent)
    end

    def fold_blocks(body)
      body.find_by(context: :paragraph) { |b| b.has_role?('answer') }.each do |b|
        replace(b) { |parent| fold(parent, 'Answer', 'answer-fold', [b]) }
      end
      body.find_by(context: :example) { |b| b.has_role?('exercise') }.each do |ex|
        hint = 0
        ex.blocks.dup.each do |b|
          if b.context == :paragraph && b.has_role?('hint')
            replace(b) { fold(ex, "Hint #{hint += 1}", 'hint-fold', [b]) }
          elsif b.context == :listing && b.has_role?('check')
            replace(b) { fold(ex, 'How `check` tests it', 'check-fold', [b]) }
          elsif b.context == :listing && b.has_role?('solution')
            replace(b) { fold(ex, 'Worked solution', 'solution-fold', [b]) }
          end
        end
        # The wrong attempts (each titled with its mistake) go together into
        # one fold after the solution: they give away what the check tests.
        wrongs = ex.blocks.select { |b| b.context == :listing && b.has_role?('wrong') }
        unless wrongs.empty?
          wrongs.each { |b| ex.blocks.delete(b) }
          ex << fold(ex, 'Wrong attempts `check` refuses', 'wrong-fold', wrongs)
        end
      end
      body.find_by(context: :example) { |b| b.has_role?('quiz') }.each { |q| fold_quiz(q) }
    end

    # The choices stay, unticked; which one is right, and why each is or is
    # not, goes into a fold.
    def fold_quiz(quiz)
      list = quiz.blocks.find { |b| b.context == :ulist } or return
      explanations = []
      list.items.each_with_index do |item, i|
        right = item.attr?('checked')
        item.attributes.delete('checked')
        text = item.instance_variable_get(:@text)
        head = Asciidoctor::Block.new(quiz, :paragraph, source: "*#{i + 1}. #{text}* (#{right ? 'right' : 'wrong'})", subs: :normal)
        explanations << head
        item.blocks.each { |b| b.parent = quiz; explanations << b }
        item.blocks.clear
      end
      list.set_option('checklist') unless list.option?('checklist')
      quiz << fold(quiz, 'Answer', 'quiz-fold', explanations)
    end

    def highlight_commands(body)
      body.find_by(context: :listing) { |b| b.has_role?('run') || b.has_role?('solution') || b.has_role?('check') || b.has_role?('wrong') }.each do |b|
        next if b.style == 'source'
        b.style = 'source'
        b.set_attr('language', 'shell')
        syntax_hl = b.document.syntax_highlighter
        next unless syntax_hl&.highlight?
        i = b.subs.index(:specialcharacters)
        b.subs[i] = :highlight if i
      end
    end

    # Each [.expect] gets its run's real output beside it. The lesson's
    # commands ([.run] and [.solution], in reading order) are found in the
    # transcript in the same order; an output that does not match its pattern
    # (it should, --auto checked it) is not shown.
    def add_reference(body, lesson)
      return unless @reference && @reference.passed?(lesson.id)
      runs = @reference.runs(lesson.id)
      cursor = 0
      last = nil
      body.find_by { |b| %i[listing literal].include?(b.context) && (b.has_role?('run') || b.has_role?('solution') || b.has_role?('expect')) }.each do |b|
        if b.has_role?('expect')
          next unless last
          output = last[1]
          last = nil
          next unless Match.matches?(b.lines, output, b.has_role?('unordered'))
          pair_with_reference(b, output)
        else
          k = (cursor...runs.size).find { |j| runs[j][0] == b.source }
          last = k ? runs[k] : nil
          cursor = k + 1 if k
        end
      end
    end

    # The lab's namespace tree in the reference run, as text and as a picture,
    # at the end of the step where it had the most namespaces. HTML gets the
    # SVG inline; the PDF an image of the same SVG, written beside it.
    def add_picture(doc, body, lesson)
      return unless @reference && @reference.passed?(lesson.id)
      step, lines, root = @reference.picture(lesson.id)
      return unless step
      section = body.blocks.select { |b| b.context == :section }[step - 1] or return
      label = "The lab's PID namespaces after step #{step} of lesson #{lesson.number} in the reference run"
      pair = Asciidoctor::Block.new(section, :open, content_model: :compound)
      pair.add_role('ns-picture-pair')
      pair.title = "The namespace tree after this step (reference run, Linux #{@reference.meta['kernel']}, " \
                   "#{@reference.meta['date']})"
      text = Asciidoctor::Block.new(pair, :literal, source: lines.join("\n"), subs: [:specialcharacters])
      text.add_role('ns-tree-text')
      pair << text
      svg = NsPicture.svg(root, label)
      pair << (@html ? html_picture(pair, svg) : pdf_picture(doc, pair, svg, lesson, label))
      section << pair
    end

    def html_picture(parent, svg)
      Asciidoctor::Block.new(parent, :pass, source: %(<div class="ns-picture-box">#{svg}</div>), subs: [])
    end

    def pdf_picture(doc, parent, svg, lesson, label)
      to_file = doc.options[:to_file]
      out = to_file.is_a?(String) ? File.dirname(File.expand_path(to_file)) : doc.options[:to_dir] || doc.attr('outdir')
      dir = File.join(out || Dir.tmpdir, 'ns-pictures')
      FileUtils.mkdir_p(dir)
      path = File.join(dir, "#{lesson.id}.svg")
      File.write(path, svg)
      Asciidoctor::Block.new(parent, :image, content_model: :empty,
                                             attributes: { 'target' => path, 'alt' => label, 'pdfwidth' => '100%' })
    end

    def pair_with_reference(expect, output)
      parent = expect.parent
      pair = Asciidoctor::Block.new(parent, :open, content_model: :compound)
      pair.add_role('expect-pair')
      replace(expect) { pair }
      expect.parent = pair
      pair << expect
      text = output.empty? ? '(nothing)' : output.join("\n")
      ref = Asciidoctor::Block.new(pair, :literal, source: text, subs: [:specialcharacters])
      ref.add_role('reference')
      ref.title = "Reference run (Linux #{@reference.meta['kernel']}, #{@reference.meta['date']})"
      pair << ref
    end
  end
end

Asciidoctor::Extensions.register do
  preprocessor do
    process do |doc, reader|
      doc.sourcemap = true # to know which lesson file each chapter came from
      reader
    end
  end
  treeprocessor PidnsHandbook::Treeprocessor
end
